// Acceptor: one thread with its own io_context that accepts connections on
// every bound listener address and hands each, round-robin, to a Processor.
// The accepted socket is created on the Processor's io_context directly, so
// no hand-off queue is needed. A connection over its ConnectionQuotas limit
// is closed straight after accept.
#pragma once

#include <atomic>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include "network/connection_quotas.h"

namespace skiff::network {

class Processor;

struct ListenerEndpoint {
  std::string name;  // e.g. "PLAINTEXT"
  std::string host;  // "" / 0.0.0.0: all IPv4; "::": all; "localhost": 127.0.0.1 and ::1
  uint16_t port = 0;
};

struct BoundListener {
  ListenerEndpoint requested;
  uint16_t port = 0;  // the port actually bound (differs when requested was 0)
  std::vector<boost::asio::ip::tcp::endpoint> addresses;
};

class BindError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Acceptor {
 public:
  Acceptor(std::vector<Processor*> processors, std::shared_ptr<ConnectionQuotas> quotas);
  ~Acceptor();

  // Binds every address of the listener; throws BindError with a clear reason.
  BoundListener bind(const ListenerEndpoint& listener);
  void start();
  // Closes the listening sockets and joins the thread. Idempotent.
  void stop();

 private:
  struct Listening {
    std::string listener_name;
    uint16_t port;
    boost::asio::ip::tcp::acceptor acceptor;
  };
  void accept_next(Listening& l);
  std::vector<boost::asio::ip::address> bind_addresses(const ListenerEndpoint& listener);

  std::vector<Processor*> processors_;
  std::shared_ptr<ConnectionQuotas> quotas_;
  boost::asio::io_context io_;
  std::vector<std::unique_ptr<Listening>> listening_;
  std::thread thread_;
  size_t next_processor_ = 0;
};

}  // namespace skiff::network
