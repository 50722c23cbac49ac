#include "coordinator/txn/producer_ids.h"

namespace skiff::txn {

namespace {
constexpr int16_t kMaxEpoch = INT16_MAX - 1;  // Kafka bumps to a new id before Short.MAX_VALUE
constexpr size_t kMaxTrackedBumps = 100000;
}  // namespace

IssuedProducerId ProducerIds::fresh() {
  IssuedProducerId r;
  r.producer_id = store_.allocate();
  if (r.producer_id < 0) {
    r.error = ErrorCode::kKafkaStorageError;
    return r;
  }
  r.epoch = 0;
  return r;
}

IssuedProducerId ProducerIds::init(int64_t producer_id, int16_t epoch) {
  if (producer_id < 0 || epoch < 0) return fresh();
  if (producer_id >= store_.high_watermark()) {
    IssuedProducerId r;
    r.error = ErrorCode::kInvalidProducerIdMapping;
    return r;
  }
  std::lock_guard lk(mu_);
  auto it = bumped_.find(producer_id);
  if (it != bumped_.end() && epoch < it->second) {
    IssuedProducerId r;
    r.error = ErrorCode::kProducerFenced;
    return r;
  }
  if (epoch >= kMaxEpoch) {
    bumped_.erase(producer_id);
    return fresh();
  }
  if (bumped_.size() >= kMaxTrackedBumps) bumped_.clear();  // bounded: fencing is best effort
  bumped_[producer_id] = static_cast<int16_t>(epoch + 1);
  return {ErrorCode::kNone, producer_id, static_cast<int16_t>(epoch + 1)};
}

}  // namespace skiff::txn
