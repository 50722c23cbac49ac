// GroupMetadata: one classic consumer group (Kafka's GroupMetadata): its
// state, generation, members, the selected protocol, and its committed
// offsets. The state machine is
//
//   Empty ──join──► PreparingRebalance ──all joined / timeout──► CompletingRebalance
//     ▲                 ▲          │                                  │ leader's SyncGroup
//     │                 │          └──no member left──► Empty         ▼
//     │                 └──join / leave / expiry──────────────────  Stable
//   any ──delete / expiry of the last offset──► Dead
//
// A group id names a group of one type: when `consumer` is set, the group
// uses KIP-848's consumer protocol (consumer_group.h) and its classic part
// stays Empty with no member; the committed offsets below serve both types.
//
// This class keeps the data consistent (member bookkeeping, protocol votes,
// legal transitions); GroupCoordinator drives the protocol.
//
// Threads: every field is guarded by `mu`; the coordinator holds it for the
// whole of an operation on the group. Never take the coordinator's map lock
// while holding it.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "coordinator/group/consumer_group.h"
#include "coordinator/group/group_types.h"
#include "coordinator/group/member_metadata.h"
#include "coordinator/group/share_group.h"
#include "coordinator/group/streams_group.h"

namespace skiff::group {

class GroupMetadata : public std::enable_shared_from_this<GroupMetadata> {
 public:
  using Clock = std::chrono::steady_clock;

  GroupMetadata(std::string group_id, int64_t now_ms) : group_id_(std::move(group_id)), state_timestamp_(now_ms) {}

  std::mutex mu;

  const std::string& group_id() const { return group_id_; }
  GroupState state() const { return state_; }
  bool is(GroupState s) const { return state_ == s; }
  bool can_transition_to(GroupState target) const;
  // Throws std::logic_error on an illegal transition (a coordinator bug).
  void transition_to(GroupState target, int64_t now_ms);
  int64_t state_timestamp() const { return state_timestamp_; }
  // Online migration (group_migration.cc) only: the classic part becomes
  // Empty with no member (an upgrade), or Stable at once with the members a
  // downgrade added (Kafka's ClassicGroup.fromConsumerGroup starts Stable).
  void reset_classic(int64_t now_ms);
  void restore_stable(int64_t now_ms) {
    state_ = GroupState::kStable;
    state_timestamp_ = now_ms;
  }
  void set_state_timestamp(int64_t ms) { state_timestamp_ = ms; }

  // ---- members ----
  bool has(const std::string& member_id) const { return members_.count(member_id) > 0; }
  MemberMetadata* get(const std::string& member_id);
  // Adds a member; the first member fixes the protocol type and is leader.
  void add(MemberMetadata member);
  // Removes a member (and its static id and pending sync); picks a new leader.
  void remove(const std::string& member_id);
  const std::map<std::string, MemberMetadata>& members() const { return members_; }
  std::map<std::string, MemberMetadata>& members() { return members_; }
  size_t size() const { return members_.size(); }
  bool is_leader(const std::string& member_id) const { return leader_id_ == member_id; }
  const std::string& leader_id() const { return leader_id_; }

  // KIP-394: ids handed out with MEMBER_ID_REQUIRED, until their first join.
  std::map<std::string, Clock::time_point> pending_members;
  bool is_pending(const std::string& member_id) const { return pending_members.count(member_id) > 0; }

  // KIP-345: group.instance.id -> current member id.
  std::optional<std::string> static_member_id(const std::string& instance_id) const;
  void set_static_member(const std::string& instance_id, const std::string& member_id) {
    static_members_[instance_id] = member_id;
  }
  // The static member `instance_id` takes the new member id (its assignment stays).
  void replace_static_member(const std::string& instance_id, const std::string& old_id, const std::string& new_id);

  // Members of this generation that have not sent SyncGroup yet.
  std::set<std::string> pending_sync;

  size_t awaiting_join_count() const;
  bool all_members_joined() const { return awaiting_join_count() == members_.size() && pending_members.empty(); }
  int32_t max_rebalance_timeout_ms() const;

  // ---- protocols ----
  bool supports_protocols(const std::string& protocol_type, const std::vector<Protocol>& protocols) const;
  // The protocol every member supports with the most first-choice votes.
  std::string select_protocol() const;
  // Starts the next generation (CompletingRebalance, or Empty if no member).
  void init_next_generation(int64_t now_ms);
  // The leader's view: every member with its metadata for the protocol.
  std::vector<JoinedMember> current_member_metadata() const;

  int32_t generation_id = 0;
  std::optional<std::string> protocol_type;
  std::optional<std::string> protocol_name;

  // Bumped whenever a rebalance (join) or sync phase starts or ends, so a
  // timer armed for an older phase finds a different epoch and does nothing.
  uint64_t join_epoch = 0;
  uint64_t sync_epoch = 0;
  bool initial_delay_pending = false;

  // ---- the consumer protocol (KIP-848); null: a classic group ----
  std::unique_ptr<ConsumerGroup> consumer;
  bool is_consumer() const { return consumer != nullptr; }
  // ---- a share group (KIP-932, share_group.h); null: not one ----
  std::unique_ptr<ShareGroup> share;
  bool is_share() const { return share != nullptr; }
  // ---- a streams group (KIP-1071, streams_group.h); null: not one ----
  std::unique_ptr<StreamsGroup> streams;
  bool is_streams() const { return streams != nullptr; }

  // No member of any protocol (and not Dead): what retention, DeleteGroups
  // and member-less commits ask.
  bool is_empty_group() const {
    return state_ == GroupState::kEmpty && (!consumer || consumer->empty()) && (!share || share->empty()) &&
           (!streams || streams->empty());
  }
  // A classic group that is only a placeholder (no member, protocol or
  // offset; made by a request that failed): another type may take its id.
  bool is_blank() const {
    return !consumer && !share && !streams && state_ == GroupState::kEmpty && members_.empty() && !protocol_type &&
           offsets.empty() && pending_offsets.empty();
  }
  // ListGroups' GroupType and state, whatever the type.
  const char* type_name() const { return streams ? "streams" : share ? "share" : consumer ? "consumer" : "classic"; }
  std::string state_text() const {
    return streams ? streams->state() : share ? share->state() : consumer ? consumer->state() : state_name(state_);
  }

  // ---- committed offsets ----
  std::map<TopicPartition, OffsetAndMetadata> offsets;
  // Transactional offsets by producer id, until the marker (KIP-447).
  std::map<int64_t, std::map<TopicPartition, PendingOffset>> pending_offsets;
  bool has_pending(const TopicPartition& tp) const {
    for (const auto& [pid, offsets] : pending_offsets)
      if (offsets.count(tp)) return true;
    return false;
  }

 private:
  std::string group_id_;
  GroupState state_ = GroupState::kEmpty;
  int64_t state_timestamp_;
  std::map<std::string, MemberMetadata> members_;
  std::vector<std::string> join_order_;  // member ids in the order they joined
  std::map<std::string, std::string> static_members_;
  std::string leader_id_;
};

}  // namespace skiff::group
