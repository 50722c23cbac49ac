// ShareStateInitializer: the group coordinator's port to the share
// coordinator (`__share_group_state`, coordinator/share/) for the state of a
// share group's partitions — Kafka's Persister calls made by the group
// coordinator (GroupCoordinatorService / GroupMetadataManager):
//   - initialize: when a share group's partitions are first assigned
//     (start offset -1: the share-partition leader picks it with the
//     group's share.auto.offset.reset; 0 for new partitions of a topic the
//     group already knew, as Kafka), and AlterShareGroupOffsets (the given
//     start offsets). `state_epoch` is the group epoch (Kafka passes it).
//   - read_summary: DescribeShareGroupOffsets (start offset, leader epoch,
//     delivery-complete count per partition).
//   - remove: DeleteShareGroupOffsets, and DeleteGroups of a share group.
// The server/ side implements it over the share coordinator; tests use a
// fake. One result per asked partition, in any order.
//
// Threads: any method may be called from any thread, never with a group's
// lock held; `done` may run on any thread, even before the call returns,
// and must not block. Lifetime: `done` calls back into the GroupCoordinator
// (it takes the group's lock), so the implementation must answer or drop
// every pending call before the coordinator is destroyed (answers after its
// shutdown() are ignored).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/uuid.h"
#include "protocol/error_codes.h"

namespace skiff::group {

struct SharePartitionId {
  Uuid topic_id;
  int32_t partition = 0;
  auto operator<=>(const SharePartitionId&) const = default;
};

struct ShareStateStart {
  SharePartitionId partition;
  int64_t start_offset = -1;
};

struct ShareStateResult {
  SharePartitionId partition;
  ErrorCode error = ErrorCode::kNone;
  std::string message;
};

struct ShareStateSummary {
  SharePartitionId partition;
  ErrorCode error = ErrorCode::kNone;
  std::string message;
  int32_t state_epoch = 0;
  int32_t leader_epoch = -1;
  int64_t start_offset = -1;
  int32_t delivery_complete_count = -1;  // -1: unknown (no lag then)
};

class ShareStateInitializer {
 public:
  using ResultsCallback = std::function<void(std::vector<ShareStateResult>)>;
  using SummaryCallback = std::function<void(std::vector<ShareStateSummary>)>;

  virtual ~ShareStateInitializer() = default;
  // Kafka's initializeState (InitializeShareGroupState).
  virtual void initialize(const std::string& group_id, int32_t state_epoch, std::vector<ShareStateStart> partitions,
                          ResultsCallback done) = 0;
  // Kafka's readSummary (ReadShareGroupStateSummary), leader epoch -1.
  virtual void read_summary(const std::string& group_id, std::vector<SharePartitionId> partitions,
                            SummaryCallback done) = 0;
  // Kafka's deleteState (DeleteShareGroupState).
  virtual void remove(const std::string& group_id, std::vector<SharePartitionId> partitions, ResultsCallback done) = 0;
};

}  // namespace skiff::group
