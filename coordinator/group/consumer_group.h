// ConsumerGroup: the state of one group that uses KIP-848's consumer group
// protocol (Kafka's modern/consumer/ConsumerGroup.java): the group epoch,
// the target assignment and the epoch it was computed at, the members with
// their subscriptions and reconciliation state (consumer::MemberAssignmentState),
// who owns which partition, and the subscribed topics' metadata the target was
// computed from. The protocol (ConsumerGroupHeartbeat) is driven by
// GroupCoordinator (consumer_heartbeat.cc); this file keeps the data
// consistent: adding and removing members (their partitions freed, the group
// epoch bumped), computing the target with an assignor, and the group state
// Kafka reports (Empty, Assigning, Reconciling, Stable).
//
// A group id names one group of one type: a GroupMetadata in the
// coordinator's map is a consumer group when its `consumer` part is set
// (group_metadata.h); its committed offsets stay in the GroupMetadata, shared
// by both types.
//
// Threads: owned by its GroupMetadata and guarded by that group's mutex.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "coordinator/group/assignor.h"
#include "coordinator/group/consumer_member_reconciler.h"
#include "coordinator/group/consumer_regex.h"
#include "coordinator/group/group_types.h"
#include "protocol/error_codes.h"

namespace skiff::group {

// A member that speaks the classic protocol (JoinGroup/SyncGroup/Heartbeat)
// inside a consumer group (online migration; Kafka's ClassicMemberMetadata,
// persisted in ConsumerGroupMemberMetadataValue).
struct ClassicMemberMetadata {
  int32_t session_timeout_ms = 0;
  std::vector<Protocol> protocols;  // from its JoinGroup, in its order of preference
  bool operator==(const ClassicMemberMetadata&) const = default;
};

struct ConsumerGroupMember {
  std::string member_id;
  std::optional<std::string> instance_id;
  std::optional<std::string> rack_id;
  std::string client_id;
  std::string client_host;
  std::vector<std::string> subscribed_names;    // sorted, unique
  std::optional<std::string> subscribed_regex;  // never empty (an empty one clears it)
  std::optional<std::string> server_assignor;
  int32_t rebalance_timeout_ms = 0;
  consumer::MemberAssignmentState assignment;
  std::optional<ClassicMemberMetadata> classic;  // set: a classic-protocol member
  bool uses_classic() const { return classic.has_value(); }
  // Session expiry (TimerQueue): the deadline moves with every heartbeat;
  // one timer is live at a time (`session_timer_round`; older ones do
  // nothing) and re-checks under the group's lock. A deadline earlier than
  // the live timer's (the group's session timeout was lowered) arms a new one.
  std::chrono::steady_clock::time_point session_deadline{};
  std::chrono::steady_clock::time_point session_timer_at{};
  bool session_timer_armed = false;
  uint64_t session_timer_round = 0;
  // Bumped each time a revocation starts, so a stale rebalance timer of an
  // earlier revocation does nothing.
  uint64_t revocation_round = 0;
  // A classic member's join and sync timeouts (Kafka's consumer-group join
  // and sync timeouts for classic members): armed for its rebalance timeout
  // when it is told to rejoin (kJoin, unless already waiting for that) and
  // when its JoinGroup is answered (kSync); its JoinGroup and SyncGroup move
  // on to the next wait or none. A timer of an older round does nothing; one
  // of the live round removes the member.
  enum class ClassicWait : uint8_t { kNone, kJoin, kSync };
  ClassicWait classic_wait = ClassicWait::kNone;
  uint64_t classic_wait_round = 0;
};

// Every topic name, for regex subscriptions (called only when the topics
// version moved since the group last resolved its regexes).
using TopicNamesLister = std::function<std::vector<std::string>()>;

// The group's metadata hash (ConsumerGroupMetadataValue.MetadataHash,
// KIP-1101): 0 for no topic, else a stable 64-bit hash of every subscribed
// topic's name, id and partition count, in name order. Kafka 4.4 hashes with
// XXH3 (hash4j), which we do not link; ours is FNV-1a 64 with a splitmix64
// finaliser over the same fields (consumer_group.cc has the byte stream). The
// value only has to be stable across our own restarts: it is compared with
// the one in the group's record so that a load does not bump the group epoch.
int64_t topics_metadata_hash(const std::map<std::string, consumer::TopicMetadata>& topics);

// What of a consumer group is durable, as of one moment (compared by
// consumer_records_since to write only what changed).
struct ConsumerGroupImage {
  int32_t group_epoch = 0;
  int32_t assignment_epoch = 0;
  consumer::TargetAssignment target;
  std::map<std::string, ConsumerGroupMember> members;
  int64_t metadata_hash = 0;
  std::map<std::string, ResolvedRegex> regexes;
};

class ConsumerGroup {
 public:
  ConsumerGroupImage image() const { return {group_epoch, assignment_epoch, target, members, metadata_hash, regexes}; }
  int32_t group_epoch = 0;
  int32_t assignment_epoch = 0;  // the epoch of `target`
  consumer::TargetAssignment target;
  std::map<std::string, ConsumerGroupMember> members;
  std::map<std::string, std::string> static_members;  // instance id -> member id
  consumer::PartitionOwnership owners;
  // The subscribed topics (by name) as last seen, and their hash; a change
  // of the hash bumps the epoch.
  std::map<std::string, consumer::TopicMetadata> subscribed_topics;
  int64_t metadata_hash = 0;
  // The members' regular expressions and the topics each matched
  // (consumer_regex.h), and when they were last resolved.
  std::map<std::string, ResolvedRegex> regexes;
  std::chrono::steady_clock::time_point regexes_refreshed_at{};

  bool empty() const { return members.empty(); }
  // Kafka's ConsumerGroupState names: Empty, Assigning, Reconciling, Stable.
  std::string state() const;

  ConsumerGroupMember* get(const std::string& member_id);
  // Removes a member, frees its partitions, drops its target and bumps the
  // group epoch (Kafka writes the tombstones and a new epoch alike).
  void remove(const std::string& member_id);
  // A static member's new member id: same assignment, epoch and target.
  void rename(const std::string& old_id, const std::string& new_id);
  // Replaces the member's assignment state, keeping `owners` in step; false
  // (nothing changed) if a partition would get a second owner.
  bool set_assignment(ConsumerGroupMember& m, const consumer::MemberAssignmentState& next);

  // Resolves the members' regexes no one resolved yet at once, and all of
  // them again when `topics_version` moved (at most once per `min_interval`);
  // drops those no member uses any more. Calls `list` at most once.
  void refresh_regexes(uint64_t topics_version, const TopicNamesLister& list, std::chrono::milliseconds min_interval);
  // Re-reads the subscribed topics' metadata (names and regex matches);
  // true when their hash changed (the caller bumps the group epoch).
  bool refresh_subscribed_topics(const TopicResolver& resolve);
  // The topic names a member subscribes to: its names and its regex's matches.
  std::set<std::string> subscribed_names_of(const ConsumerGroupMember& m) const;
  // Resolved topic ids of a member's subscription (existing topics only).
  std::set<Uuid> subscribed_ids(const ConsumerGroupMember& m) const;
  // The assignor the group uses: the one most members ask for, else `fallback`.
  std::string preferred_assignor(const std::string& fallback) const;
  // Runs the assignor when the group epoch moved past the target's epoch.
  void maybe_compute_target(const std::string& default_assignor);
};

}  // namespace skiff::group

namespace skiff::group {

// ConsumerGroupHeartbeat, codec-free (the handler translates).
struct ConsumerHeartbeatParams {
  int16_t version = 1;
  std::string group_id;
  std::string member_id;
  int32_t member_epoch = 0;
  std::optional<std::string> instance_id;
  std::optional<std::string> rack_id;
  int32_t rebalance_timeout_ms = -1;
  std::optional<std::vector<std::string>> subscribed_names;  // none: unchanged
  std::optional<std::string> subscribed_regex;               // none: unchanged; empty: none
  std::optional<std::string> server_assignor;
  std::optional<consumer::Assignment> owned;  // none: not sent
  std::string client_id;
  std::string client_host;
  TopicResolver resolve;
  // For regex subscriptions: the broker's topics version, read before
  // anything else (a topic created after it is seen at the next heartbeat),
  // and the lister of topic names.
  uint64_t topics_version = 0;
  TopicNamesLister list_topics;
};

struct ConsumerHeartbeatResult {
  ErrorCode error = ErrorCode::kNone;
  std::optional<std::string> message;
  std::string member_id;
  int32_t member_epoch = 0;
  int32_t heartbeat_interval_ms = 0;
  std::optional<consumer::Assignment> assignment;  // sent when it changed or was asked for
};

// ConsumerGroupDescribe, codec-free.
struct ConsumerMemberDescription {
  std::string member_id;
  std::optional<std::string> instance_id;
  std::optional<std::string> rack_id;
  int32_t member_epoch = 0;
  std::string client_id;
  std::string client_host;
  std::vector<std::string> subscribed_names;
  std::optional<std::string> subscribed_regex;
  consumer::Assignment assigned;
  consumer::Assignment target;
  bool classic = false;  // still on the classic protocol (MemberType 0)
};

struct ConsumerGroupDescription {
  ErrorCode error = ErrorCode::kNone;
  std::optional<std::string> message;
  std::string group_id;
  std::string state;
  int32_t group_epoch = 0;
  int32_t assignment_epoch = 0;
  std::string assignor;
  std::vector<ConsumerMemberDescription> members;
  std::map<Uuid, std::string> topic_names;  // of the subscribed topics
};

}  // namespace skiff::group
