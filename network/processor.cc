#include "network/processor.h"

#include <sys/prctl.h>

#include <boost/asio/post.hpp>

#include "network/coalescing.h"
#include "network/connection.h"
#include "network/net_log.h"
#include "network/response_gate.h"

namespace skiff::network {

namespace {
// How often a Processor offers the MemoryPool's freed bytes to its waiters.
constexpr auto kMemoryRetry = std::chrono::milliseconds(5);
}  // namespace

Processor::Processor(int id, ProcessorConfig config, RequestChannel& channel, std::shared_ptr<MemoryPool> memory_pool)
    : id_(id),
      config_(config),
      channel_(channel),
      work_(boost::asio::make_work_guard(io_)),
      idle_timer_(io_),
      memory_pool_(std::move(memory_pool)),
      memory_timer_(io_) {
  channel_.register_processor(id_, [this](Response r) { enqueue_response(std::move(r)); });
}

Processor::~Processor() { stop(); }

void Processor::start() {
  schedule_idle_sweep();
  thread_ = std::thread([this] {
    pthread_setname_np(pthread_self(), ("skiff-net-" + std::to_string(id_)).c_str());
    cpu_.attach();
    for (;;) {
      try {
        run_loop();
        cpu_.detach();
        return;
      } catch (const std::exception& e) {
        // A handler bug must not take the whole Processor down with it.
        net_log().error("processor {}: unexpected error: {}", id_, e.what());
      }
    }
  });
}

// One turn of the loop waits in epoll for something to be ready, then runs
// everything that is. With coalescing on (coalesce_us = T), a turn that woke
// less than T after the loop went idle and read requests from two
// connections or more is followed by a sleep that ends up to T after the
// turn woke, before the next look at the sockets: under a steady load of
// small requests from many clients, one wake-up of the loop (and of a
// handler) then serves a batch of requests instead of one each, at the price
// of up to T more latency. The sleep is shorter when the connections send
// faster than a few requests each per T (coalescing.h), so that it never
// caps clients whose in-flight windows it fills. Below a wake-up per T, or
// with one busy connection, the loop waits in epoll as usual: a single
// client's pipeline is already served back to back (staging), and holding it
// would cap it at its in-flight window per T. The requests a turn queues wake
// one handler at its end (RequestChannel::wake_handlers).
//
// The sleep runs from look to look (not from the end of the turn), with the
// thread's timer slack at 1 ns: under the heaviest load, when clients send as
// many requests per period as their in-flight windows allow, a period
// stretched by the turn's own work and the kernel's default 50 µs of slack
// capped the rate eight connections could reach (docs/benchmarks.md,
// 2026-12-05).
void Processor::run_loop() {
  if (config_.coalesce_us <= 0) {
    io_.run();
    return;
  }
  ::prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  const auto tick = std::chrono::microseconds(config_.coalesce_us);
  auto idle_since = std::chrono::steady_clock::now();
  auto last_woke = idle_since;
  while (io_.run_one() > 0) {
    const auto woke = std::chrono::steady_clock::now();
    io_.poll();
    if (handlers_owed_wake_) channel_.wake_handlers();
    handlers_owed_wake_ = false;
    const bool hold = connections_read_ >= 2 && woke - idle_since < tick;
    coalescing_ = hold;
    if (hold)
      std::this_thread::sleep_until(woke + coalescing_hold(tick, woke - last_woke, connections_read_, requests_read_));
    connections_read_ = 0;
    requests_read_ = 0;
    last_read_connection_ = 0;
    last_woke = woke;
    idle_since = std::chrono::steady_clock::now();
  }
}

void Processor::stop() {
  if (!thread_.joinable()) return;
  boost::asio::post(io_, [this] {
    std::vector<std::shared_ptr<Connection>> all;
    for (auto& [id, c] : connections_) all.push_back(c);
    for (auto& c : all) c->close("");
    idle_timer_.cancel();
    memory_timer_.cancel();
    memory_waiters_.clear();
    work_.reset();
    io_.stop();
  });
  thread_.join();
  connections_.clear();
}

void Processor::accept(boost::asio::ip::tcp::socket socket, ConnectionQuotas::Slot slot, RequestContext context,
                       std::shared_ptr<const TlsContext> tls) {
  boost::asio::post(io_, [this, socket = std::move(socket), slot = std::move(slot), context = std::move(context),
                          tls = std::move(tls)]() mutable {
    if (draining_) return;  // the socket and slot close as they go out of scope
    boost::system::error_code ec;
    socket.set_option(boost::asio::ip::tcp::no_delay(true), ec);
    socket.set_option(boost::asio::socket_base::keep_alive(true), ec);
    if (config_.send_buffer_bytes > 0)
      socket.set_option(boost::asio::socket_base::send_buffer_size(config_.send_buffer_bytes), ec);
    if (config_.receive_buffer_bytes > 0)
      socket.set_option(boost::asio::socket_base::receive_buffer_size(config_.receive_buffer_bytes), ec);
    context.processor_id = id_;
    context.connection_id = (static_cast<uint64_t>(id_) << 48) | ++next_connection_seq_;
    slot.bind(context.connection_id);  // ConnectionQuotas::is_open knows it from now until it closes
    auto conn =
        std::make_shared<Connection>(*this, std::move(socket), std::move(slot), std::move(context), std::move(tls));
    connections_.emplace(conn->id(), conn);
    connection_count_.store(connections_.size());
    conn->start();
  });
}

void Processor::enqueue_response(Response response) {
  if (response.context.gate) {    // the calling thread may write it itself (response_gate.h)
    std::optional<Request> next;  // the connection's next request, staged behind this response
    const bool may_cork = config_.coalesce_us > 0 && channel_.handles_here();  // latency traded, as coalescing
    bool corked = false;
    const auto outcome = response.context.gate->try_answer(response, next, may_cork ? &corked : nullptr);
    if (may_cork && outcome != ResponseGate::Outcome::kClosed) channel_.wrote(response.context.gate, corked);
    switch (outcome) {
      case ResponseGate::Outcome::kAnswered:
        on_response_sent(response.times);
        on_response_taken();
        hand_on(std::move(next));
        return;
      case ResponseGate::Outcome::kClosed:
        on_response_taken();
        return;
      case ResponseGate::Outcome::kAnsweredWake:
        on_response_sent(response.times);
        on_response_taken();
        hand_on(std::move(next));
        post_delivery(response.context.connection_id, std::nullopt);
        return;
      case ResponseGate::Outcome::kToProcessor:
        break;
    }
  }
  const uint64_t connection_id = response.context.connection_id;
  post_delivery(connection_id, std::move(response));
}

bool Processor::queue_request(Request& request) {
  const bool later = config_.coalesce_us > 0;
  if (!channel_.try_send_request(request, later ? RequestChannel::Wake::kLater : RequestChannel::Wake::kNow))
    return false;
  handlers_owed_wake_ |= later;
  on_request_queued();
  return true;
}

// Any thread: a staged request, owed now, goes to a handler without the loop.
void Processor::hand_on(std::optional<Request> next) {
  if (!next) return;
  on_request_queued();
  channel_.hand_on(std::move(*next));
}

// Any thread. One wake-up of the loop takes everything that arrived meanwhile.
void Processor::post_delivery(uint64_t connection_id, std::optional<Response> response) {
  bool first;
  {
    std::lock_guard lock(responses_mu_);
    first = responses_.empty();
    responses_.push_back({connection_id, std::move(response)});
  }
  if (first) boost::asio::post(io_, [this] { deliver_responses(); });
}

void Processor::deliver_responses() {
  {
    std::lock_guard lock(responses_mu_);
    delivering_.swap(responses_);  // both keep their capacity: no allocation in the steady state
  }
  for (auto& [connection_id, response] : delivering_) {
    if (response) on_response_taken();
    auto it = connections_.find(connection_id);
    if (it == connections_.end()) continue;  // closed meanwhile: drop the response
    auto conn = it->second;
    try {
      if (response)
        conn->on_response(std::move(*response));
      else
        conn->on_answered();
    } catch (const std::exception& e) {
      net_log().error("processor {}: unexpected error writing a response: {}", id_, e.what());
      conn->close("");
    }
  }
  delivering_.clear();
}

void Processor::begin_drain() {
  boost::asio::post(io_, [this] {
    draining_ = true;
    std::vector<std::shared_ptr<Connection>> idle;
    for (auto& [id, c] : connections_)
      if (!c->gate().request_wake()) idle.push_back(c);  // the others close once answered
    for (auto& c : idle) c->close("broker shutting down");
  });
}

void Processor::remove(uint64_t connection_id) {
  connections_.erase(connection_id);
  connection_count_.store(connections_.size());
  if (auto* listener = channel_.connection_listener()) listener->on_connection_closed(connection_id);
}

void Processor::wait_for_memory(const std::shared_ptr<Connection>& c) {
  memory_waiters_.push_back(c);
  arm_memory_timer();
}

// First come, first served: while the pool is still spent the first waiter
// keeps its place and those behind it wait too.
void Processor::retry_memory_waiters() {
  while (!memory_waiters_.empty()) {
    auto c = memory_waiters_.front().lock();
    if (c && !c->closed() && !c->try_admit_waiting_frame()) break;
    memory_waiters_.pop_front();
    if (c && !c->closed()) c->resume_reading();
  }
  if (!memory_waiters_.empty()) arm_memory_timer();
}

void Processor::arm_memory_timer() {
  if (memory_timer_armed_) return;
  memory_timer_armed_ = true;
  memory_timer_.expires_after(kMemoryRetry);
  memory_timer_.async_wait([this](const boost::system::error_code& ec) {
    memory_timer_armed_ = false;
    if (!ec) retry_memory_waiters();
  });
}

// One timer per Processor, not per connection: cheap with many idle sockets.
void Processor::schedule_idle_sweep() {
  auto period = std::chrono::milliseconds(std::clamp<int64_t>(config_.connections_max_idle_ms / 10, 10, 1000));
  idle_timer_.expires_after(period);
  idle_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;
    auto now = std::chrono::steady_clock::now();
    auto limit = std::chrono::milliseconds(config_.connections_max_idle_ms);
    std::vector<std::shared_ptr<Connection>> expired;
    for (auto& [id, c] : connections_)
      if (!c->owed() && !c->waiting_for_memory() && now - c->last_active() > limit) expired.push_back(c);
    for (auto& c : expired) {
      if (c->handshaking())  // a client stuck mid-handshake: the idle limit is its handshake timeout, as in Kafka
        net_log().info("closing connection from {}: TLS handshake not finished within connections.max.idle.ms={}",
                       c->peer_address(), config_.connections_max_idle_ms);
      else
        net_log().debug("closing idle connection {} (connections.max.idle.ms={})", c->id(),
                        config_.connections_max_idle_ms);
      c->close("");
    }
    schedule_idle_sweep();
  });
}

}  // namespace skiff::network
