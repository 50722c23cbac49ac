// ShareGroup: one share group (KIP-932, Kafka 4.4's modern/share/ShareGroup):
// its group epoch, members (ShareGroupMember), the target assignment of the
// `simple` assignor and its epoch, the subscribed topics' metadata hash, and
// the share-partition state bookkeeping (ShareGroupStatePartitionMetadata:
// which topic-partitions have their state initialized in the share
// coordinator, which are being initialized, which are being deleted).
//
// A share group shares the group-id namespace with classic and consumer
// groups: GroupMetadata::share is set for a share group (its classic part
// then stays Empty with no member, as for a consumer group).
//
// Unlike a consumer group, a partition may be assigned to several members
// at once (records are handed out by the share-partition leader, one
// acquisition lock at a time), so there is no revocation: a member moves to
// the target assignment in one heartbeat (Kafka's
// ShareGroupAssignmentBuilder), and only partitions whose share state is
// initialized are assigned.
//
// Threads: guarded by the owning GroupMetadata's mutex.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "coordinator/group/assignor.h"
#include "coordinator/group/group_types.h"

namespace skiff::group {

struct ShareGroupMember {
  std::string member_id;
  std::optional<std::string> rack_id;
  std::string client_id;
  std::string client_host;
  std::vector<std::string> subscribed_names;  // sorted, unique
  int32_t member_epoch = 0;
  int32_t previous_member_epoch = 0;
  int8_t state = 0;  // Kafka's MemberState: share members are always STABLE (0)
  consumer::Assignment assigned;
  // Session expiry (TimerQueue), as ConsumerGroupMember's: one live timer
  // (`session_timer_round`), re-checking the deadline under the group lock.
  std::chrono::steady_clock::time_point session_deadline{};
  std::chrono::steady_clock::time_point session_timer_at{};
  bool session_timer_armed = false;
  uint64_t session_timer_round = 0;

  // What ShareGroupMemberMetadataValue holds.
  bool same_metadata(const ShareGroupMember& o) const {
    return rack_id == o.rack_id && client_id == o.client_id && client_host == o.client_host &&
           subscribed_names == o.subscribed_names;
  }
  // What ShareGroupCurrentMemberAssignmentValue holds.
  bool same_assignment(const ShareGroupMember& o) const {
    return member_epoch == o.member_epoch && previous_member_epoch == o.previous_member_epoch && state == o.state &&
           assigned == o.assigned;
  }
};

// One topic of ShareGroupStatePartitionMetadata (Kafka's InitMapValue).
struct ShareInitTopic {
  std::string name;
  std::set<int32_t> partitions;
  // Wall clock of the initialize request; -1 after a load (not in the
  // record): such a topic is asked again at the next heartbeat.
  int64_t timestamp_ms = -1;
  bool operator==(const ShareInitTopic& o) const { return name == o.name && partitions == o.partitions; }
};

struct ShareStatePartitions {
  std::map<Uuid, ShareInitTopic> initializing;
  std::map<Uuid, ShareInitTopic> initialized;
  std::map<Uuid, std::string> deleting;  // topic id -> name
  bool operator==(const ShareStatePartitions&) const = default;
};

// What of a share group is durable, as of one moment (share_records_since
// compares two of them to write only what changed).
struct ShareGroupImage {
  int32_t group_epoch = 0;
  int32_t assignment_epoch = 0;
  consumer::TargetAssignment target;
  std::map<std::string, ShareGroupMember> members;
  int64_t metadata_hash = 0;
  std::optional<ShareStatePartitions> state_partitions;
};

class ShareGroup {
 public:
  ShareGroupImage image() const {
    return {group_epoch, assignment_epoch, target, members, metadata_hash, state_partitions};
  }

  int32_t group_epoch = 0;
  int32_t assignment_epoch = 0;
  consumer::TargetAssignment target;
  std::map<std::string, ShareGroupMember> members;
  int64_t metadata_hash = 0;
  // The subscribed topics (union of the members') as last resolved.
  std::map<std::string, consumer::TopicMetadata> subscribed_topics;
  // ShareGroupStatePartitionMetadata; none: no record yet.
  std::optional<ShareStatePartitions> state_partitions;
  // When the target was last computed (steady clock; none: never since the
  // load), for group.share.assignment.interval.ms.
  std::optional<std::chrono::steady_clock::time_point> assigned_at;

  bool empty() const { return members.empty(); }
  // Kafka's ShareGroupState: Empty or Stable (Dead once deleted).
  std::string state() const { return members.empty() ? "Empty" : "Stable"; }
  ShareGroupMember* get(const std::string& member_id);
  // Every member's subscribed names.
  std::set<std::string> subscribed_names() const;
  // Re-reads the subscribed topics; true when their hash changed.
  bool refresh_subscribed_topics(const TopicResolver& resolve);
  // After a member left: drops the topics no member subscribes to any more
  // and recomputes the hash (no lookup).
  void forget_unsubscribed_topics();
  // Kafka's initializedAssignmentPending: a subscribed topic has initialized
  // partitions the target does not assign yet (so the epoch must move).
  bool initialized_assignment_pending() const;
  // The simple assignor over the initialized partitions of the subscribed
  // topics; the target's epoch becomes the group epoch.
  void compute_target();
  // Kafka's ShareGroupAssignmentBuilder: the member takes the target (and
  // its epoch); only partitions of topics it subscribes to. True when it changed.
  bool reconcile(ShareGroupMember& m);
  // Removes a member and its target and bumps the group epoch.
  void remove(const std::string& member_id);
};

// Kafka's SimpleAssignor (simple): members share partitions when there are
// more members than partitions. `desiredSharing` = ceil(members/partitions)
// members per partition; each member gets its share of the
// partitions*sharing slots; sticky (a member keeps what it had while within
// its quota). Members subscribed to the same topics are assigned together
// (homogeneous); otherwise topic by topic among the members subscribed to
// it (heterogeneous). `assignable`: the partitions that may be assigned
// (initialized share state). Deterministic (ordered containers).
struct SimpleAssignorMember {
  std::string member_id;
  std::set<Uuid> subscribed;
  consumer::Assignment current;  // its current target
};
consumer::TargetAssignment simple_assign(const std::vector<SimpleAssignorMember>& members,
                                         const std::map<Uuid, std::set<int32_t>>& assignable);

}  // namespace skiff::group
