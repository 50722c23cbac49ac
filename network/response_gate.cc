#include "network/response_gate.h"

#include <utility>

namespace skiff::network {

void ResponseGate::open(std::optional<MemoryPool::Lease> lease) {
  touch();
  std::lock_guard lock(mu_);
  owed_ = true;
  wake_ = false;
  lease_ = std::move(lease);
}

bool ResponseGate::owed() const {
  std::lock_guard lock(mu_);
  return owed_;
}

bool ResponseGate::request_wake() {
  std::lock_guard lock(mu_);
  if (owed_) wake_ = true;
  return owed_;
}

void ResponseGate::answered() {
  std::optional<MemoryPool::Lease> lease;
  {
    std::lock_guard lock(mu_);
    owed_ = wake_ = false;
    lease = std::move(lease_);
    lease_.reset();
  }
  touch();
}

void ResponseGate::close() {
  std::lock_guard lock(mu_);
  fd_ = -1;
  owed_ = wake_ = false;
  lease_.reset();
}

ResponseGate::Outcome ResponseGate::finish() {
  owed_ = false;
  lease_.reset();
  touch();
  return std::exchange(wake_, false) ? Outcome::kAnsweredWake : Outcome::kAnswered;
}

ResponseGate::Outcome ResponseGate::try_answer(Response& response) {
  std::lock_guard lock(mu_);
  if (fd_ < 0) return Outcome::kClosed;
  if (!owed_) return Outcome::kToProcessor;  // not ours to write: keep the old path
  switch (response.action) {
    case Response::Action::kNoOp:
      return finish();
    case Response::Action::kClose:
      return Outcome::kToProcessor;
    case Response::Action::kSend:
      break;
  }
  WriteCursor at;
  std::string error;
  if (write_response_chunks(fd_, response.chunks, at, error) == WriteStatus::kDone) return finish();
  drop_written(response.chunks, at);  // blocked or failed: the Processor goes on (and sees any error)
  return Outcome::kToProcessor;
}

}  // namespace skiff::network
