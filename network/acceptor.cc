#include "network/acceptor.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/post.hpp>
#include <cerrno>
#include <future>

#include "network/net_log.h"
#include "network/processor.h"
#include "network/sasl_session.h"

namespace skiff::network {
namespace ip = boost::asio::ip;

namespace {

constexpr auto kFirstBackoff = std::chrono::milliseconds(10);
constexpr auto kMaxBackoff = std::chrono::milliseconds(1000);
constexpr auto kReportInterval = std::chrono::seconds(10);
constexpr auto kTlsReloadPeriod = std::chrono::seconds(3);

int open_reserve_fd() { return ::open("/dev/null", O_RDONLY | O_CLOEXEC); }

bool out_of_descriptors(const boost::system::error_code& ec) {
  return ec == boost::system::errc::too_many_files_open || ec == boost::system::errc::too_many_files_open_in_system;
}

}  // namespace

Acceptor::Acceptor(std::vector<Processor*> processors, std::shared_ptr<ConnectionQuotas> quotas)
    : processors_(std::move(processors)), quotas_(std::move(quotas)), reserve_fd_(open_reserve_fd()) {}

Acceptor::~Acceptor() {
  stop();
  if (reserve_fd_ >= 0) ::close(reserve_fd_);
}

BoundListener Acceptor::bind(const ListenerEndpoint& listener) {
  auto acceptors = listen_all(io_, listener.host, listener.port, "listener " + listener.name,
                              fmt::format("listener {}://{}:{}", listener.name, listener.host, listener.port),
                              [&listener](uint16_t port, const boost::system::error_code& ec) {
                                net_log().warn("listener {}: cannot bind [::1]:{} ({}); serving IPv4 only",
                                               listener.name, port, ec.message());
                              });
  BoundListener bound{listener, acceptors.empty() ? listener.port : acceptors.front().local_endpoint().port(), {}};
  for (auto& a : acceptors) {
    bound.addresses.push_back(a.local_endpoint());
    listening_.push_back(std::make_unique<Listening>(
        Listening{listener.name, bound.port, std::move(a), nullptr, {}, listener.tls, listener.sasl}));
  }
  return bound;
}

void Acceptor::start() {
  for (auto& l : listening_) accept_next(*l);
  schedule_tls_reload();
  thread_ = std::thread([this] {
    pthread_setname_np(pthread_self(), "skiff-acceptor");
    io_.run();
  });
}

void Acceptor::set_processors(std::vector<Processor*> processors) {
  if (!thread_.joinable()) {
    processors_ = std::move(processors);
    return;
  }
  auto done = std::make_shared<std::promise<void>>();
  auto applied = done->get_future();
  boost::asio::post(io_, [this, done, processors = std::move(processors)]() mutable {
    processors_ = std::move(processors);
    done->set_value();
  });
  applied.wait_for(std::chrono::seconds(5));
}

void Acceptor::accept_next(Listening& l) {
  Processor* target = processors_[next_processor_++ % processors_.size()];
  l.acceptor.async_accept(target->io_context(),
                          [this, &l, target](const boost::system::error_code& ec, ip::tcp::socket socket) {
                            if (ec == boost::asio::error::operation_aborted || !l.acceptor.is_open()) return;
                            if (ec) {
                              on_accept_error(l, ec);
                              return;
                            }
                            if (l.trouble.failures > 0) on_accept_resumed(l);
                            hand_over(l, target, std::move(socket));
                            accept_next(l);
                          });
}

void Acceptor::hand_over(Listening& l, Processor* target, ip::tcp::socket socket) {
  boost::system::error_code ep_ec;
  auto remote = socket.remote_endpoint(ep_ec);
  auto local = socket.local_endpoint(ep_ec);
  if (ep_ec) return;  // the peer went away already
  std::string peer = remote.address().to_string();
  std::string why;
  int64_t throttle_ms = 0;
  auto slot = quotas_->try_acquire(peer, &why, l.listener_name, &throttle_ms);
  if (!slot && throttle_ms > 0) {
    net_log().debug("delaying the close of connection from {} by {} ms: {}", peer, throttle_ms, why);
    close_later(std::move(socket), std::chrono::milliseconds(throttle_ms));
    return;
  }
  if (!slot) {
    net_log().warn("rejected connection from {}: {}", peer, why);
    boost::system::error_code ignore;
    socket.close(ignore);
    return;
  }
  if (std::find(processors_.begin(), processors_.end(), target) == processors_.end()) {
    // Bound to a Processor removed since (num.network.threads shrank): move it.
    Processor* now = processors_[next_processor_++ % processors_.size()];
    boost::system::error_code ec;
    const auto protocol = local.protocol();
    const int fd = socket.release(ec);
    if (ec) return;
    ip::tcp::socket moved(now->io_context());
    moved.assign(protocol, fd, ec);
    if (ec) {
      ::close(fd);
      return;
    }
    socket = std::move(moved);
    target = now;
  }
  RequestContext ctx;
  ctx.listener_name = l.listener_name;
  ctx.peer_address = peer;
  ctx.local_address = local.address().to_string();
  ctx.local_port = l.port;
  if (l.sasl) ctx.sasl = std::make_shared<SaslSession>();
  target->accept(std::move(socket), std::move(*slot), std::move(ctx), l.tls ? l.tls->current() : nullptr);
}

// A connection over its IP's connection_creation_rate: held open, unread,
// for the throttle time, then closed (Kafka's DelayedCloseSocket), so that a
// client reconnecting in a loop is slowed down rather than answered at once.
// The descriptor leaves the socket (bound to a Processor's loop) and is the
// timer's; a stopped Acceptor runs the handler at once and closes it.
void Acceptor::close_later(ip::tcp::socket socket, std::chrono::milliseconds delay) {
  boost::system::error_code ec;
  const int fd = socket.release(ec);
  if (ec) return;
  auto timer = std::make_shared<boost::asio::steady_timer>(io_, delay);
  timer->async_wait([fd, timer](const boost::system::error_code&) { ::close(fd); });
  std::erase_if(delayed_closes_, [](const auto& w) { return w.expired(); });
  delayed_closes_.push_back(timer);
}

void Acceptor::schedule_tls_reload() {
  if (std::none_of(listening_.begin(), listening_.end(), [](auto& l) { return l->tls != nullptr; })) return;
  tls_reload_timer_.expires_after(kTlsReloadPeriod);
  tls_reload_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;
    std::vector<TlsListenerContext*> done;  // a listener bound on two addresses shares one context
    for (auto& l : listening_) {
      if (!l->tls || std::find(done.begin(), done.end(), l->tls.get()) != done.end()) continue;
      l->tls->reload_if_changed();
      done.push_back(l->tls.get());
    }
    schedule_tls_reload();
  });
}

// Never retry at once: a failing accept (EMFILE above all) would spin a core
// and flood the log. Wait, doubling up to kMaxBackoff, then try again.
void Acceptor::on_accept_error(Listening& l, const boost::system::error_code& ec) {
  ++l.trouble.failures;
  ++l.trouble.unreported;
  if (out_of_descriptors(ec)) shed_one_pending(l);
  report_accept_error(l, ec);
  l.trouble.backoff = std::min<std::chrono::milliseconds>(
      kMaxBackoff, l.trouble.backoff.count() == 0 ? kFirstBackoff : l.trouble.backoff * 2);
  if (!l.backoff_timer) l.backoff_timer = std::make_unique<boost::asio::steady_timer>(io_);
  l.backoff_timer->expires_after(l.trouble.backoff);
  l.backoff_timer->async_wait([this, &l](const boost::system::error_code& wait_ec) {
    if (wait_ec || !l.acceptor.is_open()) return;
    accept_next(l);
  });
}

// At most one line per kReportInterval, with the count of failures since the last.
void Acceptor::report_accept_error(Listening& l, const boost::system::error_code& ec) {
  auto now = std::chrono::steady_clock::now();
  if (now - l.trouble.last_report < kReportInterval) return;
  const char* hint = out_of_descriptors(ec)
                         ? "; out of file descriptors: new connections wait (the oldest pending one is closed), "
                           "open ones are still served; raise the limit (ulimit -n / LimitNOFILE)"
                         : "";
  net_log().warn("accept on listener {} failed {} time(s) since the last report: {}{}; retrying in up to {} ms",
                 l.listener_name, l.trouble.unreported, ec.message(), hint, kMaxBackoff.count());
  l.trouble.unreported = 0;
  l.trouble.last_report = now;
}

// Rate-limited too: at the descriptor limit a listener can flip between
// accepting and failing once per closed connection.
void Acceptor::on_accept_resumed(Listening& l) {
  auto now = std::chrono::steady_clock::now();
  if (now - l.trouble.last_resume_report >= kReportInterval) {
    net_log().info("listener {}: accepting connections again after {} failed accept(s)", l.listener_name,
                   l.trouble.failures);
    l.trouble.last_resume_report = now;
  }
  l.trouble.failures = l.trouble.unreported = 0;
  l.trouble.backoff = std::chrono::milliseconds(0);
  if (reserve_fd_ < 0) reserve_fd_ = open_reserve_fd();
}

// Frees the reserve descriptor for a moment to accept the oldest pending
// connection and close it at once: its client learns to retry instead of
// hanging in a backlog that does not drain. Then takes the reserve back
// (if another thread took the slot meanwhile, it is retaken on resume).
void Acceptor::shed_one_pending(Listening& l) {
  if (reserve_fd_ < 0) reserve_fd_ = open_reserve_fd();
  if (reserve_fd_ < 0) return;
  ::close(reserve_fd_);
  boost::system::error_code ec;
  l.acceptor.native_non_blocking(true, ec);
  int fd = ec ? -1 : ::accept4(l.acceptor.native_handle(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
  if (fd >= 0) ::close(fd);
  reserve_fd_ = open_reserve_fd();
}

void Acceptor::stop() {
  if (!thread_.joinable()) {
    listening_.clear();
    return;
  }
  boost::asio::post(io_, [this] {
    for (auto& l : listening_) {
      boost::system::error_code ec;
      l->acceptor.close(ec);
      if (l->backoff_timer) l->backoff_timer->cancel();
    }
    tls_reload_timer_.cancel();
    for (auto& w : delayed_closes_)
      if (auto t = w.lock()) t->cancel();  // closes the held connections now
  });
  thread_.join();
  listening_.clear();
}

}  // namespace skiff::network
