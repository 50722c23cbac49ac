#include "network/request_channel.h"

#include <iterator>
#include <stdexcept>

#include "network/response_gate.h"

namespace skiff::network {

bool RequestChannel::try_send_request(Request& request, Wake wake) {
  {
    std::lock_guard lock(mu_);
    if (closed_ || queue_.size() >= capacity_) return false;
    queue_.push_back(std::move(request));
  }
  if (wake == Wake::kNow) not_empty_.notify_one();
  return true;
}

void RequestChannel::wake_handlers() { not_empty_.notify_one(); }

namespace {
// The request a handler thread keeps to handle next (hand_on), and the
// channel it serves (set by receive_request: only handler threads call it).
thread_local const RequestChannel* t_channel = nullptr;
thread_local std::optional<Request> t_kept;

// The connection this handler thread left a corked response on (wrote()).
struct Cork {
  std::shared_ptr<ResponseGate> gate;
  bool served = false;  // a request was served since: push it before the next
};
thread_local Cork t_cork;

void push_cork() {
  if (!t_cork.gate) return;
  t_cork.gate->uncork();
  t_cork = {};
}

// Before a handler thread takes its next request: a cork left by the last
// one waits for the kept request (most likely the staged one it was corked
// for), and no longer.
void settle_cork() {
  if (!t_cork.gate) return;
  if (!t_cork.served && t_kept)
    t_cork.served = true;
  else
    push_cork();
}
}  // namespace

bool RequestChannel::handles_here() const { return t_channel == this; }

void RequestChannel::wrote(const std::shared_ptr<ResponseGate>& gate, bool corked) {
  if (!corked) {
    if (t_cork.gate == gate) t_cork = {};  // an uncorked write pushed it
    return;
  }
  if (t_cork.gate != gate) push_cork();
  t_cork = {gate, false};
}

void RequestChannel::hand_on(Request request) {
  handed_on_.fetch_add(1, std::memory_order_relaxed);
  std::unique_lock lock(mu_);
  const bool handler = handles_here();
  // The request was read (staged) before whatever else its turn of the loop
  // read and queued: it goes ahead of those, so a fetch read behind a run of
  // pipelined produces sees all of them appended, not only the first.
  const bool oldest = queue_.empty() || request.received_at <= queue_.front().received_at;
  if (oldest && handler && !t_kept) {
    t_kept.emplace(std::move(request));
    return;
  }
  auto at = queue_.end();
  while (at != queue_.begin() && std::prev(at)->received_at > request.received_at) --at;
  queue_.insert(at, std::move(request));
  // A handler thread takes from the queue itself once done: another is
  // woken only when two or more would still wait behind its next one.
  const bool wake = !handler || (queue_.size() + (t_kept ? 1 : 0) >= 3 && may_wake_another());
  lock.unlock();
  if (wake) not_empty_.notify_one();
}

void RequestChannel::release_kept() {
  push_cork();
  {
    std::lock_guard lock(mu_);
    if (t_channel == this) --handlers_;
    if (t_kept) queue_.push_back(std::move(*t_kept));
  }
  t_channel = nullptr;
  t_kept.reset();
  not_empty_.notify_one();  // for what this thread would have taken next
}

std::optional<Request> RequestChannel::receive_request(std::chrono::milliseconds timeout) {
  if (t_channel != this) {
    std::lock_guard lock(mu_);
    ++handlers_;
    t_channel = this;
  }
  settle_cork();
  if (t_kept) {
    std::optional<Request> r = std::move(t_kept);
    t_kept.reset();
    r->dequeued_at = std::chrono::steady_clock::now();
    return r;
  }
  std::unique_lock lock(mu_);
  ++waiting_;
  const bool ready = not_empty_.wait_for(lock, timeout, [&] { return !queue_.empty() || closed_; });
  --waiting_;
  if (!ready || queue_.empty()) return std::nullopt;
  Request r = std::move(queue_.front());
  queue_.pop_front();
  // Requests queued together (Wake::kLater) woke one handler: with two or
  // more left, one more helps, and it wakes the next in turn, up to
  // awake_target threads awake. One left is served next by this thread,
  // cheaper than another thread's wake-up.
  const bool help = queue_.size() >= 2 && may_wake_another();
  lock.unlock();
  if (help) not_empty_.notify_one();
  r.dequeued_at = std::chrono::steady_clock::now();
  return r;
}

void RequestChannel::close() {
  {
    std::lock_guard lock(mu_);
    closed_ = true;
  }
  not_empty_.notify_all();
}

void RequestChannel::register_processor(int processor_id, ResponseRoute route) {
  if (processor_id < 0 || processor_id >= kMaxProcessorIds) throw std::out_of_range("processor id out of range");
  auto owned = std::make_unique<ResponseRoute>(std::move(route));
  std::lock_guard lock(mu_);
  routes_[processor_id].store(owned.get(), std::memory_order_release);
  owned_routes_.push_back(std::move(owned));
}

void RequestChannel::send_response(Response response) {
  auto id = response.context.processor_id;
  if (id < 0 || id >= kMaxProcessorIds) return;
  if (const ResponseRoute* route = routes_[id].load(std::memory_order_acquire)) (*route)(std::move(response));
}

bool RequestChannel::closed() const {
  std::lock_guard lock(mu_);
  return closed_ && queue_.empty();
}

size_t RequestChannel::size() const {
  std::lock_guard lock(mu_);
  return queue_.size();
}

}  // namespace skiff::network
