// GroupCoordinator: SyncGroup, Heartbeat and LeaveGroup (Kafka's
// handleSyncGroup / handleHeartbeat / handleLeaveGroup). On a consumer group
// they serve its classic members (consumer_classic_members.cc).
#include "common/log_escape.h"
#include "coordinator/group/group_coordinator.h"
#include "coordinator/runtime/coordinator_log.h"

namespace skiff::group {
namespace {

// A SyncGroup's protocol type and name, when sent, must be the group's.
bool protocol_matches(const GroupMetadata& g, const SyncGroupParams& p) {
  return (!p.protocol_type || g.protocol_type == *p.protocol_type) &&
         (!p.protocol_name || g.protocol_name == *p.protocol_name);
}

// A LeaveGroup refused as a whole: `error` for the group and every member.
LeaveGroupResult leave_failed(ErrorCode error, size_t members) {
  LeaveGroupResult r;
  r.error = error;
  r.members.assign(members, error);
  return r;
}

// The member a LeaveGroup names: by member id, or by instance id alone (an
// admin's removal, KIP-345); a static member's id must be its instance's.
ErrorCode leaving_member_id(const GroupMetadata& g, const MemberIdentity& who, std::string& id) {
  id = who.member_id;
  if (!who.group_instance_id) return ErrorCode::kNone;
  auto current = g.static_member_id(*who.group_instance_id);
  if (id.empty()) {  // admin removal by instance id (KIP-345)
    if (!current) return ErrorCode::kUnknownMemberId;
    id = *current;
  } else if (current && *current != id) {
    return ErrorCode::kFencedInstanceId;
  }
  return ErrorCode::kNone;
}

}  // namespace

void GroupCoordinator::sync_group(SyncGroupParams p, SyncCallback cb) {
  if (shutting_down_) return cb(sync_error(ErrorCode::kNotCoordinator));
  auto g = find(p.group_id);
  if (!g) return cb(sync_error(ErrorCode::kUnknownMemberId));
  std::lock_guard lock(g->mu);
  if (shutting_down_) return cb(sync_error(ErrorCode::kNotCoordinator));  // see join_group
  if (g->is(GroupState::kDead)) return cb(sync_error(ErrorCode::kCoordinatorNotAvailable));
  if (g->is_share() || g->is_streams()) return cb(sync_error(ErrorCode::kGroupIdNotFound));  // "not a classic group"
  if (g->is_consumer()) return cb(classic_sync_consumer_group(*g, p));                       // online migration
  if (auto err = validate_member(*g, p.member_id, p.group_instance_id); err != ErrorCode::kNone)
    return cb(sync_error(err));
  if (p.generation_id != g->generation_id) return cb(sync_error(ErrorCode::kIllegalGeneration));
  if (!protocol_matches(*g, p)) return cb(sync_error(ErrorCode::kInconsistentGroupProtocol));
  auto& m = *g->get(p.member_id);
  switch (g->state()) {
    case GroupState::kEmpty:
    case GroupState::kDead:
      return cb(sync_error(ErrorCode::kUnknownMemberId));
    case GroupState::kPreparingRebalance:
      return cb(sync_error(ErrorCode::kRebalanceInProgress));
    case GroupState::kStable:
      g->pending_sync.erase(p.member_id);
      schedule_session_expiry(*g, m);
      return cb(SyncGroupResult{ErrorCode::kNone, g->protocol_type, g->protocol_name, m.assignment});
    case GroupState::kCompletingRebalance:
      break;
  }
  if (auto old = std::exchange(m.awaiting_sync, nullptr)) old(sync_error(ErrorCode::kRebalanceInProgress));
  m.awaiting_sync = std::move(cb);
  g->pending_sync.erase(p.member_id);
  schedule_session_expiry(*g, m);
  if (!g->is_leader(p.member_id)) return;  // waits for the leader's assignment
  complete_sync(*g, p.assignments);
}

// The leader's assignment: stored, the group Stable, every waiting member
// answered. Caller holds g.mu.
void GroupCoordinator::complete_sync(GroupMetadata& g, std::vector<std::pair<std::string, Bytes>>& assignments) {
  for (auto& [id, member] : g.members()) member.assignment.clear();
  for (auto& [id, assignment] : assignments)
    if (auto* target = g.get(id)) target->assignment = std::move(assignment);
  g.transition_to(GroupState::kStable, now_ms());
  persist(g);
  coordinator::log().debug("group {}: generation {} is stable", escaped(g.group_id()), g.generation_id);
  for (auto& [id, member] : g.members()) {
    if (auto waiting = std::exchange(member.awaiting_sync, nullptr))
      waiting(SyncGroupResult{ErrorCode::kNone, g.protocol_type, g.protocol_name, member.assignment});
  }
}

ErrorCode GroupCoordinator::heartbeat(const HeartbeatParams& p) {
  if (shutting_down_) return ErrorCode::kNotCoordinator;
  auto g = find(p.group_id);
  if (!g) return ErrorCode::kUnknownMemberId;
  std::lock_guard lock(g->mu);
  if (g->is(GroupState::kDead)) return ErrorCode::kCoordinatorNotAvailable;
  if (g->is_share() || g->is_streams()) return ErrorCode::kGroupIdNotFound;  // "not a classic group"
  if (g->is_consumer()) return classic_heartbeat_consumer_group(*g, p);      // online migration
  if (auto err = validate_member(*g, p.member_id, p.group_instance_id); err != ErrorCode::kNone) return err;
  if (p.generation_id != g->generation_id) return ErrorCode::kIllegalGeneration;
  switch (g->state()) {
    case GroupState::kEmpty:
    case GroupState::kDead:
      return ErrorCode::kUnknownMemberId;
    case GroupState::kPreparingRebalance:
      schedule_session_expiry(*g, *g->get(p.member_id));
      return ErrorCode::kRebalanceInProgress;
    case GroupState::kCompletingRebalance:
    case GroupState::kStable:
      schedule_session_expiry(*g, *g->get(p.member_id));
      return ErrorCode::kNone;
  }
  return ErrorCode::kNone;
}

LeaveGroupResult GroupCoordinator::leave_group(const std::string& group_id,
                                               const std::vector<MemberIdentity>& members) {
  if (shutting_down_) return leave_failed(ErrorCode::kNotCoordinator, members.size());
  auto g = find(group_id);
  if (!g) {
    LeaveGroupResult r;
    r.members.assign(members.size(), ErrorCode::kUnknownMemberId);
    return r;
  }
  std::unique_lock lock(g->mu);
  if (g->is(GroupState::kDead)) return leave_failed(ErrorCode::kCoordinatorNotAvailable, members.size());
  // Kafka: "Group g is not a classic group."
  if (g->is_share() || g->is_streams()) return leave_failed(ErrorCode::kGroupIdNotFound, members.size());
  if (g->is_consumer()) {  // classic members of a consumer group (online migration)
    std::optional<FlushPoints> written;
    LeaveGroupResult r = classic_leave_consumer_group(*g, members, written);
    lock.unlock();
    if (!written || !store_->flush(*written)) return leave_failed(ErrorCode::kCoordinatorNotAvailable, members.size());
    return r;
  }
  LeaveGroupResult r;
  for (const auto& who : members) r.members.push_back(leave_classic_member(*g, who));
  return r;
}

ErrorCode GroupCoordinator::leave_classic_member(GroupMetadata& g, const MemberIdentity& who) {
  std::string id;
  if (auto err = leaving_member_id(g, who, id); err != ErrorCode::kNone) return err;
  if (g.is_pending(id)) {
    g.pending_members.erase(id);
    if (g.is(GroupState::kPreparingRebalance)) try_complete_join(g);
    return ErrorCode::kNone;
  }
  if (!g.has(id)) return ErrorCode::kUnknownMemberId;
  coordinator::log().info("group {}: member {} left", escaped(g.group_id()), escaped(id));
  remove_member_and_update_group(g, id, "the member's LeaveGroup");
  return ErrorCode::kNone;
}

}  // namespace skiff::group
