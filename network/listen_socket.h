// Listening sockets, shared by the Kafka listeners (network/acceptor.h) and
// the HTTP listener (network/http_server.h): which addresses a configured
// host means, and how a listening socket is opened on one of them.
//
// Host names: "" or "0.0.0.0": every IPv4 interface; "::": every interface;
// "localhost": 127.0.0.1 and ::1 (librdkafka and curl may pick either);
// an address literal as it is; any other name is resolved.
// Threads: pure functions of their arguments; the io_context is used only
// for the resolver (blocking), before the owner's thread runs.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace skiff::network {

// A listener that cannot be bound; the message says which and why.
class BindError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The addresses `host` stands for; throws BindError naming `owner` (e.g.
// "listener PLAINTEXT") when a name does not resolve.
std::vector<boost::asio::ip::address> listen_addresses(boost::asio::io_context& io, const std::string& host,
                                                       std::string_view owner);

// Opens, binds and listens: SO_REUSEADDR, and IPV6_V6ONLY on a specific IPv6
// address (the IPv6 wildcard serves IPv4 too). On failure `ec` says why.
void open_listening(boost::asio::ip::tcp::acceptor& acceptor, const boost::asio::ip::tcp::endpoint& endpoint,
                    boost::system::error_code& ec);

// Listening sockets on every address `host` stands for, all on one port:
// with port 0 the first address picks it and the others must get the same
// one (tried again with a new port, up to 10 times, when another process
// holds it on one of them). localhost's ::1 is optional: a host without IPv6
// still serves 127.0.0.1, and `ipv6_skipped` (if set) is told the port and
// why. Throws BindError "<label>: <why>", label e.g.
// "listener PLAINTEXT://localhost:9092"; `owner` as for listen_addresses.
std::vector<boost::asio::ip::tcp::acceptor> listen_all(
    boost::asio::io_context& io, const std::string& host, uint16_t port, std::string_view owner, std::string_view label,
    const std::function<void(uint16_t port, const boost::system::error_code& why)>& ipv6_skipped = {});

// "127.0.0.1:9092" or "[::1]:9092", as log lines show a bound address.
std::string endpoint_text(const boost::asio::ip::tcp::endpoint& endpoint);

// "port 9092 on 127.0.0.1 is already in use", or "cannot listen on ...: why".
std::string listen_failure(const boost::asio::ip::tcp::endpoint& endpoint, const boost::system::error_code& ec);

}  // namespace skiff::network
