// ProducerIds: InitProducerId's allocator for idempotent producers. New ids
// come from storage::ProducerIdStore (durable blocks: never reused across
// restarts). A v3+ request that names its current id and epoch gets the same
// id with the epoch bumped (a new id once the epoch would overflow); an epoch
// older than one already bumped past is fenced (PRODUCER_FENCED).
//
// Threads: thread-safe (one mutex around a small map of bumped epochs).
#pragma once

#include <cstdint>
#include <filesystem>
#include <mutex>
#include <unordered_map>

#include "log/producer_id_store.h"
#include "protocol/error_codes.h"

namespace skiff::txn {

struct IssuedProducerId {
  ErrorCode error = ErrorCode::kNone;
  int64_t producer_id = -1;
  int16_t epoch = -1;
};

class ProducerIds {
 public:
  explicit ProducerIds(const std::filesystem::path& file) : store_(file) {}

  // producer_id/epoch: -1/-1 for a new producer, else the producer's current ones.
  IssuedProducerId init(int64_t producer_id, int16_t epoch);

 private:
  IssuedProducerId fresh();

  storage::ProducerIdStore store_;
  std::mutex mu_;
  std::unordered_map<int64_t, int16_t> bumped_;  // id -> latest epoch handed out by a bump
};

}  // namespace skiff::txn
