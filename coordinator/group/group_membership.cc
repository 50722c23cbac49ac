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

}  // namespace

void GroupCoordinator::sync_group(SyncGroupParams p, SyncCallback cb) {
  if (shutting_down_) return cb(sync_error(ErrorCode::kNotCoordinator));
  auto g = find(p.group_id);
  if (!g) return cb(sync_error(ErrorCode::kUnknownMemberId));
  std::lock_guard lock(g->mu);
  if (shutting_down_) return cb(sync_error(ErrorCode::kNotCoordinator));  // see join_group
  if (g->is(GroupState::kDead)) return cb(sync_error(ErrorCode::kCoordinatorNotAvailable));
  if (g->is_share()) return cb(sync_error(ErrorCode::kGroupIdNotFound));  // "not a classic group"
  if (g->is_consumer()) return cb(classic_sync_consumer_group(*g, p));    // online migration
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
  if (g->is_share()) return ErrorCode::kGroupIdNotFound;                 // "not a classic group"
  if (g->is_consumer()) return classic_heartbeat_consumer_group(*g, p);  // online migration
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
  LeaveGroupResult r;
  if (shutting_down_) {
    r.error = ErrorCode::kNotCoordinator;
    r.members.assign(members.size(), ErrorCode::kNotCoordinator);
    return r;
  }
  auto g = find(group_id);
  if (!g) {
    r.members.assign(members.size(), ErrorCode::kUnknownMemberId);
    return r;
  }
  std::unique_lock lock(g->mu);
  if (g->is(GroupState::kDead)) {
    r.error = ErrorCode::kCoordinatorNotAvailable;
    r.members.assign(members.size(), ErrorCode::kCoordinatorNotAvailable);
    return r;
  }
  if (g->is_share()) {  // Kafka: "Group g is not a classic group."
    r.error = ErrorCode::kGroupIdNotFound;
    r.members.assign(members.size(), ErrorCode::kGroupIdNotFound);
    return r;
  }
  if (g->is_consumer()) {  // classic members of a consumer group (online migration)
    std::optional<FlushPoints> written;
    r = classic_leave_consumer_group(*g, members, written);
    lock.unlock();
    if (!written || !store_->flush(*written)) {
      r.error = ErrorCode::kCoordinatorNotAvailable;
      r.members.assign(members.size(), ErrorCode::kCoordinatorNotAvailable);
    }
    return r;
  }
  for (const auto& who : members) {
    std::string id = who.member_id;
    if (who.group_instance_id) {
      auto current = g->static_member_id(*who.group_instance_id);
      if (id.empty()) {  // admin removal by instance id (KIP-345)
        if (!current) {
          r.members.push_back(ErrorCode::kUnknownMemberId);
          continue;
        }
        id = *current;
      } else if (current && *current != id) {
        r.members.push_back(ErrorCode::kFencedInstanceId);
        continue;
      }
    }
    if (g->is_pending(id)) {
      g->pending_members.erase(id);
      if (g->is(GroupState::kPreparingRebalance)) try_complete_join(*g);
      r.members.push_back(ErrorCode::kNone);
    } else if (!g->has(id)) {
      r.members.push_back(ErrorCode::kUnknownMemberId);
    } else {
      coordinator::log().info("group {}: member {} left", escaped(group_id), escaped(id));
      remove_member_and_update_group(*g, id, "the member's LeaveGroup");
      r.members.push_back(ErrorCode::kNone);
    }
  }
  return r;
}

}  // namespace skiff::group
