// Acceptor: one thread with its own io_context that accepts connections on
// every bound listener address and hands each, round-robin, to a Processor.
// The accepted socket is created on the Processor's io_context directly, so
// no hand-off queue is needed. A connection over its ConnectionQuotas limit
// is closed straight after accept.
//
// Out of descriptors (accept fails with EMFILE/ENFILE): the listener backs off
// on a timer (10 ms doubling to 1 s) instead of retrying at once, so no core
// spins; it keeps one reserve descriptor, closed for a moment to accept and
// close the oldest pending connection (its client sees a close and retries,
// rather than waiting in a backlog that never drains), then re-opened. The
// failures are logged once per interval with a count; accepting resumes by
// itself once descriptors free up. Connections already open are untouched.
//
// num.network.threads is dynamic: set_processors() replaces the Processors
// new connections go to. A connection whose accept was already bound to a
// Processor that left the list is moved (its descriptor re-assigned) to one
// that is in it, so a removed Processor gets nothing new.
//
// TLS: a connection on an SSL listener gets the listener's current
// TlsContext. One timer (every kTlsReloadPeriod, only when a listener uses
// TLS) asks each SSL listener to reload its PEM files if they changed.
//
// Thread: everything but the constructor, bind, start, stop and
// set_processors runs on the Acceptor's thread; processors_ belongs to that
// thread once started (set_processors posts the change there).
#pragma once

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "network/connection_quotas.h"
#include "network/listen_socket.h"
#include "network/tls_context.h"

namespace skiff::network {

class Processor;

struct ListenerEndpoint {
  std::string name;  // e.g. "PLAINTEXT"
  std::string host;  // "" / 0.0.0.0: all IPv4; "::": all; "localhost": 127.0.0.1 and ::1
  uint16_t port = 0;
  std::shared_ptr<TlsListenerContext> tls;  // SSL and SASL_SSL listeners; null: no TLS
  bool sasl = false;                        // SASL_PLAINTEXT and SASL_SSL: clients authenticate first
};

struct BoundListener {
  ListenerEndpoint requested;
  uint16_t port = 0;  // the port actually bound (differs when requested was 0)
  std::vector<boost::asio::ip::tcp::endpoint> addresses;
};

class Acceptor {
 public:
  Acceptor(std::vector<Processor*> processors, std::shared_ptr<ConnectionQuotas> quotas);
  ~Acceptor();

  // Binds every address of the listener; throws BindError with a clear reason.
  BoundListener bind(const ListenerEndpoint& listener);
  void start();
  // Any thread; returns once the Acceptor's thread uses the new list (or
  // after 5 s if it is not running). `processors` must not be empty.
  void set_processors(std::vector<Processor*> processors);
  // Closes the listening sockets and joins the thread. Idempotent.
  void stop();

 private:
  // Failed accepts of one listener since it last accepted.
  struct AcceptTrouble {
    std::chrono::milliseconds backoff{0};
    uint64_t failures = 0;    // in this episode
    uint64_t unreported = 0;  // since the last log line
    std::chrono::steady_clock::time_point last_report{};
    std::chrono::steady_clock::time_point last_resume_report{};
  };
  struct Listening {
    std::string listener_name;
    uint16_t port;
    boost::asio::ip::tcp::acceptor acceptor;
    std::unique_ptr<boost::asio::steady_timer> backoff_timer;
    AcceptTrouble trouble;
    std::shared_ptr<TlsListenerContext> tls;
    bool sasl = false;
  };
  void accept_next(Listening& l);
  void hand_over(Listening& l, Processor* target, boost::asio::ip::tcp::socket socket);
  void close_later(boost::asio::ip::tcp::socket socket, std::chrono::milliseconds delay);
  void on_accept_error(Listening& l, const boost::system::error_code& ec);
  void report_accept_error(Listening& l, const boost::system::error_code& ec);
  void on_accept_resumed(Listening& l);
  void shed_one_pending(Listening& l);
  void schedule_tls_reload();

  std::vector<Processor*> processors_;
  std::shared_ptr<ConnectionQuotas> quotas_;
  boost::asio::io_context io_;
  std::vector<std::unique_ptr<Listening>> listening_;
  std::thread thread_;
  size_t next_processor_ = 0;
  int reserve_fd_ = -1;  // see the header comment; Acceptor thread only once started
  boost::asio::steady_timer tls_reload_timer_{io_};
  // Throttled connections waiting to be closed (close_later); Acceptor thread only.
  std::vector<std::weak_ptr<boost::asio::steady_timer>> delayed_closes_;
};

}  // namespace skiff::network
