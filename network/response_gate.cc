#include "network/response_gate.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <thread>
#include <utility>

namespace skiff::network {

void ResponseGate::open(std::optional<MemoryPool::Lease> lease) {
  touch();
  lease_ = std::move(lease);
  state_.fetch_or(kOwed, std::memory_order_release);
}

bool ResponseGate::owed() const { return (state_.load(std::memory_order_acquire) & kOwed) != 0; }

bool ResponseGate::request_wake() {
  uint32_t s = state_.load(std::memory_order_acquire);
  while (s & kOwed)
    if (state_.compare_exchange_weak(s, s | kWake, std::memory_order_acq_rel)) return true;
  return false;
}

bool ResponseGate::answer_locked(uint32_t also_clear, bool take_next, std::optional<Request>& next) {
  touch();
  if (take_next && !staged_.empty() && !(state_.load(std::memory_order_acquire) & kClosed)) {
    lease_ = std::move(staged_.front().lease);  // the answered request's lease goes back
    next.emplace(std::move(staged_.front().request));
    staged_.pop_front();
    // Still owed (by `next`). The Processor, if it asked, is woken once no
    // staged request is left: it stopped reading at kMaxStaged.
    const uint32_t wake = staged_.empty() ? kWake : 0;
    return (state_.fetch_and(~(also_clear | wake), std::memory_order_acq_rel) & wake) != 0;
  }
  lease_.reset();
  return (state_.fetch_and(~(also_clear | kOwed | kWake), std::memory_order_acq_rel) & kWake) != 0;
}

std::optional<Request> ResponseGate::answered(bool take_next) {
  std::optional<Request> next;
  std::lock_guard lock(mu_);
  answer_locked(0, take_next, next);
  return next;
}

void ResponseGate::close() {
  uint32_t s = state_.fetch_or(kClosed, std::memory_order_acq_rel);
  while (s & kWriting) {  // a non-blocking write in progress: it ends shortly
    std::this_thread::yield();
    s = state_.load(std::memory_order_acquire);
  }
  std::deque<Staged> dropped;  // destroyed after the lock: each holds a reference to this gate
  {
    std::lock_guard lock(mu_);
    dropped.swap(staged_);
    lease_.reset();
    state_.fetch_and(~(kOwed | kWake), std::memory_order_release);
  }
}

bool ResponseGate::stage(Request& request, std::optional<MemoryPool::Lease>& lease) {
  std::lock_guard lock(mu_);
  const uint32_t s = state_.load(std::memory_order_acquire);
  if (!(s & kOwed) || (s & kClosed)) return false;
  staged_.push_back({std::move(request), std::exchange(lease, std::nullopt)});
  return true;
}

size_t ResponseGate::staged() const {
  std::lock_guard lock(mu_);
  return staged_.size();
}

std::optional<Request> ResponseGate::take_staged() {
  std::lock_guard lock(mu_);
  if (staged_.empty() || (state_.load(std::memory_order_acquire) & (kOwed | kClosed))) return std::nullopt;
  touch();
  lease_ = std::move(staged_.front().lease);
  std::optional<Request> next(std::move(staged_.front().request));
  staged_.pop_front();
  state_.fetch_or(kOwed, std::memory_order_release);
  return next;
}

bool ResponseGate::begin_write(uint32_t required) {
  uint32_t s = state_.load(std::memory_order_acquire);
  while ((s & required) == required && !(s & (kClosed | kWriting)))
    if (state_.compare_exchange_weak(s, s | kWriting, std::memory_order_acq_rel)) return true;
  return false;
}

ResponseGate::Outcome ResponseGate::end_write(bool done, std::optional<Request>& next) {
  if (!done) {
    state_.fetch_and(~kWriting, std::memory_order_release);
    return Outcome::kToProcessor;
  }
  std::lock_guard lock(mu_);
  return answer_locked(kWriting, true, next) ? Outcome::kAnsweredWake : Outcome::kAnswered;
}

ResponseGate::Outcome ResponseGate::try_answer(Response& response, std::optional<Request>& next, bool* corked) {
  // A close is the Processor's; so is a throttled response (the Processor
  // mutes the connection after writing it) and one nobody owes. Closed: drop.
  const bool processors = response.action == Response::Action::kClose ||
                          response.action == Response::Action::kSendThenClose || response.throttle.count() > 0;
  if (processors || fd_ < 0 || !begin_write())
    return (state_.load(std::memory_order_acquire) & kClosed) ? Outcome::kClosed : Outcome::kToProcessor;
  if (response.action == Response::Action::kNoOp) return end_write(true, next);
  bool more = false;
  if (corked != nullptr) {
    std::lock_guard lock(mu_);
    more = !staged_.empty() && staged_.front().request.frame.size() <= kCorkNextMax;
  }
  WriteCursor at;
  std::string error;
  bool done = write_response_chunks(fd_, response.chunks, at, error, more) == WriteStatus::kDone;
  if (!done) drop_written(response.chunks, at);   // blocked or failed: the Processor goes on (and sees any error)
  if (corked != nullptr) *corked = more && done;  // not done: the Processor's write pushes it
  return end_write(done, next);
}

// kWriting keeps close() from closing the descriptor meanwhile; a thread
// writing now pushes the corked bytes itself.
void ResponseGate::uncork() {
  if (!begin_write(0)) return;
  const int on = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);  // pushes what MSG_MORE held (tcp(7))
  state_.fetch_and(~kWriting, std::memory_order_release);
}

}  // namespace skiff::network
