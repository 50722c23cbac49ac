// ProducerIds: InitProducerId's allocator for idempotent producers. New ids
// come from ProducerIdBlocks (durable blocks in the metadata store: never
// reused across restarts). A v3+ request that names its current id and epoch gets the same
// id with the epoch bumped (a new id once the epoch would overflow); an epoch
// older than one already bumped past is fenced (PRODUCER_FENCED).
//
// Threads: thread-safe (one mutex around a small map of bumped epochs).
#pragma once

#include <cstdint>
#include <mutex>
#include <unordered_map>

#include "coordinator/txn/producer_id_blocks.h"
#include "protocol/error_codes.h"

namespace skiff::txn {

struct IssuedProducerId {
  ErrorCode error = ErrorCode::kNone;
  int64_t producer_id = -1;
  int16_t epoch = -1;
};

class ProducerIds {
 public:
  // Throws metadata::Failure when the stored block cannot be read.
  explicit ProducerIds(metadata::Namespace& ns) : store_(ns) {}

  // producer_id/epoch: -1/-1 for a new producer, else the producer's current ones.
  IssuedProducerId init(int64_t producer_id, int16_t epoch);

 private:
  IssuedProducerId fresh();

  ProducerIdBlocks store_;
  std::mutex mu_;
  std::unordered_map<int64_t, int16_t> bumped_;  // id -> latest epoch handed out by a bump
};

}  // namespace skiff::txn
