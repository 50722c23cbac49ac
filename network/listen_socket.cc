#include "network/listen_socket.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/asio/ip/v6_only.hpp>

namespace skiff::network {
namespace ip = boost::asio::ip;

std::vector<ip::address> listen_addresses(boost::asio::io_context& io, const std::string& host,
                                          std::string_view owner) {
  if (host.empty() || host == "0.0.0.0") return {ip::address_v4::any()};
  if (host == "::") return {ip::address_v6::any()};
  if (host == "localhost") return {ip::address_v4::loopback(), ip::address_v6::loopback()};
  boost::system::error_code ec;
  auto literal = ip::make_address(host, ec);
  if (!ec) return {literal};
  ip::tcp::resolver resolver(io);
  auto results = resolver.resolve(host, "", ec);
  if (ec) throw BindError(fmt::format("cannot resolve host '{}' of {}: {}", host, owner, ec.message()));
  std::vector<ip::address> out;
  for (const auto& r : results)
    if (std::find(out.begin(), out.end(), r.endpoint().address()) == out.end()) out.push_back(r.endpoint().address());
  return out;
}

void open_listening(ip::tcp::acceptor& acceptor, const ip::tcp::endpoint& endpoint, boost::system::error_code& ec) {
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(ip::tcp::acceptor::reuse_address(true), ec);
  if (!ec && endpoint.address().is_v6()) acceptor.set_option(ip::v6_only(!endpoint.address().is_unspecified()), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(boost::asio::socket_base::max_listen_connections, ec);
}

std::vector<ip::tcp::acceptor> listen_all(
    boost::asio::io_context& io, const std::string& host, uint16_t port, std::string_view owner, std::string_view label,
    const std::function<void(uint16_t port, const boost::system::error_code& why)>& ipv6_skipped) {
  const auto addresses = listen_addresses(io, host, owner);
  for (int attempt = 0;; ++attempt) {
    std::vector<ip::tcp::acceptor> made;
    std::string failure;
    for (const auto& addr : addresses) {
      ip::tcp::acceptor acceptor(io);
      const ip::tcp::endpoint ep(addr, made.empty() ? port : made.front().local_endpoint().port());
      boost::system::error_code ec;
      open_listening(acceptor, ep, ec);
      if (ec && host == "localhost" && addr.is_v6() && ec != boost::asio::error::address_in_use) {
        if (ipv6_skipped) ipv6_skipped(ep.port(), ec);
        continue;
      }
      if (ec) {
        failure = listen_failure(ep, ec);
        break;
      }
      made.push_back(std::move(acceptor));
    }
    if (failure.empty()) return made;
    if (port != 0 || attempt >= 10) throw BindError(fmt::format("{}: {}", label, failure));
  }
}

std::string endpoint_text(const ip::tcp::endpoint& endpoint) {
  const auto& a = endpoint.address();
  return a.is_v6() ? fmt::format("[{}]:{}", a.to_string(), endpoint.port())
                   : fmt::format("{}:{}", a.to_string(), endpoint.port());
}

std::string listen_failure(const ip::tcp::endpoint& endpoint, const boost::system::error_code& ec) {
  if (ec == boost::asio::error::address_in_use)
    return fmt::format("port {} on {} is already in use", endpoint.port(), endpoint.address().to_string());
  return fmt::format("cannot listen on {}:{}: {}", endpoint.address().to_string(), endpoint.port(), ec.message());
}

}  // namespace skiff::network
