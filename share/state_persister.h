// StatePersister: the broker side's port to the share coordinator (Kafka's
// Persister: ReadShareGroupState / WriteShareGroupState for one share
// partition). The integrator implements it in server/ over the share
// coordinator; tests use a fake.
//
// Meaning of the fields (Kafka's ShareSnapshot/ShareUpdate records):
//   state_epoch       the share partition's state epoch (fences old writers)
//   leader_epoch      the leader epoch of the writer (-1: unknown)
//   start_offset      the share-partition start offset (SPSO); -1 on read
//                     means "never initialized": the reader applies
//                     share.auto.offset.reset
//   delivery_complete_count  records at or past start_offset in a terminal
//                     state (ACKNOWLEDGED or ARCHIVED); -1: unknown
//   batches           read: every in-flight range with its state;
//                     write: only the ranges that changed (the coordinator
//                     merges them into its snapshot)
//   delivery_state    RecordState ids: 0 AVAILABLE, 2 ACKNOWLEDGED, 4 ARCHIVED
//
// Threads: any thread may call; `done` may run on another thread (or inline,
// before read/write returns).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/uuid.h"
#include "protocol/error_codes.h"

namespace skiff::share {

struct PersistedBatch {
  int64_t first_offset;
  int64_t last_offset;
  int8_t delivery_state;
  int16_t delivery_count;
};

struct PersistedState {
  int32_t state_epoch = 0;
  int32_t leader_epoch = -1;
  int64_t start_offset = -1;
  int32_t delivery_complete_count = -1;
  std::vector<PersistedBatch> batches;
};

struct PartitionRef {
  std::string group_id;
  Uuid topic_id;
  int32_t partition;
};

class StatePersister {  // any thread; callbacks may run on another thread
 public:
  virtual ~StatePersister() = default;
  virtual void read(const PartitionRef&, int32_t leader_epoch,
                    std::function<void(ErrorCode, std::string message, PersistedState)> done) = 0;
  virtual void write(const PartitionRef&, const PersistedState& update,  // batches = the changed ranges
                     std::function<void(ErrorCode, std::string message)> done) = 0;
};

}  // namespace skiff::share
