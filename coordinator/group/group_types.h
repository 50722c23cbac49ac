// The vocabulary of the group coordinator: group states, and the plain
// parameters and results of each operation. Independent of the codec, so the
// coordinator can be tested without building protocol messages; the handlers
// in api/handlers/ translate between these and the wire structs.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/uuid.h"
#include "coordinator/group/assignor.h"
#include "protocol/error_codes.h"

namespace skiff::group {

// Kafka's classic group states (GroupState.scala).
enum class GroupState { kEmpty, kPreparingRebalance, kCompletingRebalance, kStable, kDead };
const char* state_name(GroupState s);

using Bytes = std::vector<uint8_t>;

struct Protocol {
  std::string name;
  Bytes metadata;
  bool operator==(const Protocol&) const = default;
};

// Resolves a topic name to its id and partition count (nothing: no such
// topic); the consumer protocol's assignments name topics by id.
using TopicResolver = std::function<std::optional<consumer::TopicMetadata>(const std::string&)>;

struct TopicPartition {
  std::string topic;
  int32_t partition = 0;
  auto operator<=>(const TopicPartition&) const = default;
};

// A committed offset, as OffsetFetch returns it.
struct OffsetAndMetadata {
  int64_t offset = -1;
  int32_t leader_epoch = -1;
  std::string metadata;
  int64_t commit_timestamp = 0;   // wall clock ms when committed
  int64_t expire_timestamp = -1;  // OffsetCommit v2-4 retention_time_ms; -1: by group policy
};

// ---- JoinGroup ----
struct JoinGroupParams {
  std::string group_id;
  std::string member_id;  // empty: a new member
  std::optional<std::string> group_instance_id;
  std::string client_id;
  std::string client_host;
  int32_t session_timeout_ms = 0;
  int32_t rebalance_timeout_ms = 0;
  std::string protocol_type;
  std::vector<Protocol> protocols;
  bool require_known_member_id = false;  // v4+ (KIP-394)
  // Topic ids, for a classic member of a consumer group (online migration).
  TopicResolver resolve;
};

struct JoinedMember {
  std::string member_id;
  std::optional<std::string> group_instance_id;
  Bytes metadata;
};

struct JoinGroupResult {
  ErrorCode error = ErrorCode::kNone;
  int32_t generation_id = -1;
  std::optional<std::string> protocol_type;
  std::optional<std::string> protocol_name;
  std::string leader;
  std::string member_id;
  bool skip_assignment = false;
  std::vector<JoinedMember> members;  // the leader's only
};
using JoinCallback = std::function<void(JoinGroupResult)>;

// A JoinGroup answered with an error alone.
inline JoinGroupResult join_error(ErrorCode e, std::string member_id = {}) {
  JoinGroupResult r;
  r.error = e;
  r.member_id = std::move(member_id);
  return r;
}

// ---- SyncGroup ----
struct SyncGroupParams {
  std::string group_id;
  int32_t generation_id = -1;
  std::string member_id;
  std::optional<std::string> group_instance_id;
  std::optional<std::string> protocol_type;                // v5+
  std::optional<std::string> protocol_name;                // v5+
  std::vector<std::pair<std::string, Bytes>> assignments;  // the leader's only
};

struct SyncGroupResult {
  ErrorCode error = ErrorCode::kNone;
  std::optional<std::string> protocol_type;
  std::optional<std::string> protocol_name;
  Bytes assignment;
};
using SyncCallback = std::function<void(SyncGroupResult)>;

// A SyncGroup answered with an error alone.
inline SyncGroupResult sync_error(ErrorCode e) { return SyncGroupResult{e, {}, {}, {}}; }

// ---- Heartbeat / LeaveGroup ----
struct HeartbeatParams {
  std::string group_id;
  int32_t generation_id = -1;
  std::string member_id;
  std::optional<std::string> group_instance_id;
};

struct MemberIdentity {
  std::string member_id;
  std::optional<std::string> group_instance_id;
};

struct LeaveGroupResult {
  ErrorCode error = ErrorCode::kNone;  // the whole request
  std::vector<ErrorCode> members;      // one per identity, in order
};

// ---- Offsets ----
struct OffsetCommitParams {
  std::string group_id;
  int32_t generation_id = -1;  // -1: a commit from outside group management
  std::string member_id;
  std::optional<std::string> group_instance_id;
  std::vector<std::pair<TopicPartition, OffsetAndMetadata>> offsets;
  // Consumer groups (KIP-848): the topic id of each offset (same order; a
  // missing or zero id matches no assigned partition) and the request's
  // version (a consumer-protocol member needs v9+).
  std::vector<Uuid> topic_ids;
  int16_t api_version = 10;
};

// A TxnOffsetCommit offset waiting for its transaction's marker (KIP-447).
struct PendingOffset {
  OffsetAndMetadata offset;
  int16_t producer_epoch = -1;
  // Write order among pending offsets (store-wide, increasing): a commit
  // marker supersedes the older pending offsets of other producers.
  int64_t order = 0;
  // A newer commit of this partition was written after this offset, so the
  // COMMIT marker leaves the committed offset alone (Kafka keeps the most
  // recent record when transactional and plain commits mix).
  bool superseded = false;
};

// TxnOffsetCommit: offsets of a transaction, pending until its marker.
struct TxnOffsetCommitParams {
  std::string group_id;
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  int32_t generation_id = -1;  // v3+; -1: outside group management
  std::string member_id;
  std::optional<std::string> group_instance_id;
  int16_t api_version = 0;  // v6+: an unknown group is GROUP_ID_NOT_FOUND
  std::vector<std::pair<TopicPartition, OffsetAndMetadata>> offsets;
  std::vector<Uuid> topic_ids;  // as OffsetCommitParams::topic_ids
};

struct FetchedOffset {
  TopicPartition tp;
  std::optional<OffsetAndMetadata> committed;  // none: offset -1
  ErrorCode error = ErrorCode::kNone;          // UNSTABLE_OFFSET_COMMIT (require_stable)
};

struct OffsetFetchResult {
  ErrorCode error = ErrorCode::kNone;
  std::vector<FetchedOffset> offsets;
};

struct OffsetDeleteResult {
  ErrorCode error = ErrorCode::kNone;
  std::vector<ErrorCode> partitions;  // one per requested partition, in order
};

// ---- DescribeGroups / ListGroups ----
struct MemberDescription {
  std::string member_id;
  std::optional<std::string> group_instance_id;
  std::string client_id;
  std::string client_host;
  Bytes metadata;    // of the selected protocol, when Stable
  Bytes assignment;  // when Stable
};

struct GroupDescription {
  ErrorCode error = ErrorCode::kNone;
  bool found = false;                        // false: no such group, or not a classic one (described as Dead)
  std::optional<std::string> error_message;  // v6+: why it was not found
  std::string group_id;
  std::string state;
  std::string protocol_type;
  std::string protocol_name;
  std::vector<MemberDescription> members;
};

struct GroupOverview {
  std::string group_id;
  std::string protocol_type;
  std::string state;
  std::string group_type;  // "classic" or "consumer"
};

// One group as /metrics reports it (server/group_metrics.h), read under its
// mutex (one moment's); `offsets`: its committed offsets, by partition.
struct GroupSnapshot {
  std::string group_id;
  std::string group_type;  // "classic" or "consumer"
  std::string state;       // as ListGroups names it
  size_t members = 0;      // of either protocol; not KIP-394's pending ones
  std::vector<std::pair<TopicPartition, int64_t>> offsets;
};

}  // namespace skiff::group
