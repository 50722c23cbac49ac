// OffsetsReplay: rebuilds the group coordinator's durable state — groups,
// committed offsets and pending transactional offsets — from the records of
// `__consumer_offsets`, one partition at a time in offset order, with the
// same rules the coordinator applies when it writes them (Kafka 4.4's
// GroupMetadataManager / OffsetMetadataManager replay):
//   - an OffsetCommit record (non-transactional batch) sets the committed
//     offset and marks every pending transactional offset of that partition
//     `superseded` (a commit marker then leaves the committed offset alone);
//     its tombstone drops the offset and the partition's pending offsets;
//   - a GroupMetadata record sets the group; its tombstone drops the group
//     with its offsets and pending offsets;
//   - an OffsetCommit record in a transactional batch is pending for the
//     batch's producer until a control marker of that producer on the same
//     partition: COMMIT applies its non-superseded offsets (and supersedes
//     other producers' older pending offsets of the same partitions), ABORT
//     drops them. No marker yet: still pending after the load;
//   - the ConsumerGroup* records (KIP-848) build a LoadedConsumerGroup: group
//     and assignment epochs, the metadata hash, members (metadata + current
//     assignment), their targets and the resolved regexes (type 16, marked
//     stale: resolved again at the first heartbeat); a member's tombstones
//     remove it, a regex's tombstone removes it, the group's
//     ConsumerGroupMetadata tombstone removes the consumer group (its
//     offsets stay: they have their own tombstones);
//   - the ShareGroup* records (KIP-932) build a LoadedShareGroup the same
//     way; the ShareGroupMetadata tombstone removes the share group;
//   - the StreamsGroup* records (KIP-1071) build a LoadedStreamsGroup (the
//     topology, members, targets and current assignments); the
//     StreamsGroupMetadata tombstone removes the streams group.
//
// Threads: one thread (the coordinator's construction).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "coordinator/group/group_types.h"
#include "coordinator/group/offsets_log.h"

namespace skiff::group {

struct LoadedConsumerGroup {
  int32_t epoch = 0;
  int32_t assignment_epoch = 0;
  std::map<std::string, ConsumerGroupMember> members;
  std::map<std::string, consumer::Assignment> targets;
  int64_t metadata_hash = 0;
  std::map<std::string, ResolvedRegex> regexes;  // by regex (type 16)
};

// A share group as its ShareGroup* records left it (KIP-932).
struct LoadedShareGroup {
  int32_t epoch = 0;
  int32_t assignment_epoch = 0;
  int64_t metadata_hash = 0;
  std::map<std::string, ShareGroupMember> members;
  std::map<std::string, consumer::Assignment> targets;
  std::optional<ShareStatePartitions> state_partitions;
};

// A streams group as its StreamsGroup* records left it (KIP-1071).
struct LoadedStreamsGroup {
  StreamsGroupRecord metadata;  // type 17's fields (epoch, hash, validated epoch, configs)
  int32_t assignment_epoch = 0;
  std::optional<streams::Topology> topology;
  std::map<std::string, StreamsGroupMember> members;
  std::map<std::string, streams::TasksTuple> targets;
};

struct LoadedGroup {
  std::optional<GroupRecord> group;
  std::optional<LoadedConsumerGroup> consumer;  // wins over `group` when both are there
  std::optional<LoadedShareGroup> share;        // a share group (never with `consumer`)
  std::optional<LoadedStreamsGroup> streams;    // a streams group
  std::map<TopicPartition, OffsetAndMetadata> offsets;
  std::map<int64_t, std::map<TopicPartition, PendingOffset>> pending;  // by producer id
};

class OffsetsReplay {
 public:
  explicit OffsetsReplay(std::map<std::string, LoadedGroup>& groups) : groups_(groups) {}

  // A new partition starts: markers apply to the pending offsets of its groups only.
  void start_partition() { open_.clear(); }
  void apply(const OffsetsLogRecord& r);
  void apply_pending(int64_t producer_id, int16_t producer_epoch, const OffsetsLogRecord& r);
  void apply_marker(int64_t producer_id, bool commit);

  // The write order given to the last pending offset (the coordinator
  // continues after it).
  int64_t last_order() const { return order_; }

 private:
  LoadedGroup* existing(const std::string& group);
  void apply_consumer(const ConsumerGroupRecord& r);
  void apply_share(const ShareGroupRecord& r);
  void apply_streams(const StreamsGroupRecord& r);
  std::map<std::string, LoadedGroup>& groups_;
  std::map<int64_t, std::set<std::string>> open_;  // producer id -> groups with its pending offsets
  int64_t order_ = 0;
};

}  // namespace skiff::group
