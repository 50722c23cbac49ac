#include "network/response_gate.h"

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

void ResponseGate::answered() {
  lease_.reset();
  touch();
  state_.fetch_and(~(kOwed | kWake), std::memory_order_release);
}

void ResponseGate::close() {
  uint32_t s = state_.fetch_or(kClosed, std::memory_order_acq_rel);
  while (s & kWriting) {  // a non-blocking write in progress: it ends shortly
    std::this_thread::yield();
    s = state_.load(std::memory_order_acquire);
  }
  lease_.reset();
  state_.fetch_and(~(kOwed | kWake), std::memory_order_release);
}

bool ResponseGate::begin_write() {
  uint32_t s = state_.load(std::memory_order_acquire);
  while ((s & kOwed) && !(s & (kClosed | kWriting)))
    if (state_.compare_exchange_weak(s, s | kWriting, std::memory_order_acq_rel)) return true;
  return false;
}

ResponseGate::Outcome ResponseGate::end_write(bool done) {
  if (!done) {
    state_.fetch_and(~kWriting, std::memory_order_release);
    return Outcome::kToProcessor;
  }
  lease_.reset();
  touch();
  uint32_t before = state_.fetch_and(~(kOwed | kWake | kWriting), std::memory_order_acq_rel);
  return (before & kWake) ? Outcome::kAnsweredWake : Outcome::kAnswered;
}

ResponseGate::Outcome ResponseGate::try_answer(Response& response) {
  // A close is the Processor's; so is a throttled response (the Processor
  // mutes the connection after writing it) and one nobody owes. Closed: drop.
  const bool processors = response.action == Response::Action::kClose ||
                          response.action == Response::Action::kSendThenClose || response.throttle.count() > 0;
  if (processors || fd_ < 0 || !begin_write())
    return (state_.load(std::memory_order_acquire) & kClosed) ? Outcome::kClosed : Outcome::kToProcessor;
  if (response.action == Response::Action::kNoOp) return end_write(true);
  WriteCursor at;
  std::string error;
  bool done = write_response_chunks(fd_, response.chunks, at, error) == WriteStatus::kDone;
  if (!done) drop_written(response.chunks, at);  // blocked or failed: the Processor goes on (and sees any error)
  return end_write(done);
}

}  // namespace skiff::network
