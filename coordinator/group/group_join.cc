// GroupCoordinator: JoinGroup and the rebalance it drives (Kafka's
// GroupCoordinator.handleJoinGroup / prepareRebalance / onCompleteJoin).
#include "common/log_escape.h"
#include "coordinator/group/group_coordinator.h"
#include "coordinator/runtime/coordinator_log.h"

namespace skiff::group {
namespace {

// The request's own fields, checked before any group is looked up.
ErrorCode check_join_params(const JoinGroupParams& p, const GroupConfig& config) {
  if (p.group_id.empty()) return ErrorCode::kInvalidGroupId;
  if (p.session_timeout_ms < config.min_session_timeout_ms || p.session_timeout_ms > config.max_session_timeout_ms)
    return ErrorCode::kInvalidSessionTimeout;
  return ErrorCode::kNone;
}

// A new member that would take the group past group.max.size (a known or
// static member rejoining never counts twice).
bool over_max_size(const GroupMetadata& g, const JoinGroupParams& p, bool unknown, int32_t max_size) {
  const bool known = !unknown && (g.has(p.member_id) || g.is_pending(p.member_id));
  const bool static_rejoin = p.group_instance_id && g.static_member_id(*p.group_instance_id).has_value();
  return !known && !static_rejoin && g.size() + g.pending_members.size() >= static_cast<size_t>(max_size);
}

// A group that holds no member, pending member or offset.
bool holds_nothing(const GroupMetadata& g) {
  return g.is(GroupState::kEmpty) && g.size() == 0 && g.pending_members.empty() && g.offsets.empty();
}

}  // namespace

void GroupCoordinator::join_group(JoinGroupParams p, JoinCallback cb) {
  if (shutting_down_) return cb(join_error(ErrorCode::kNotCoordinator, p.member_id));
  if (auto e = check_join_params(p, config_); e != ErrorCode::kNone) return cb(join_error(e, p.member_id));
  const bool unknown = p.member_id.empty();
  bool created = false;
  GroupPtr g = unknown ? get_or_create(p.group_id, &created) : find(p.group_id);
  if (!g) return cb(join_error(ErrorCode::kUnknownMemberId, p.member_id));
  std::unique_lock lock(g->mu);
  // Checked again under the lock: shutdown() sweeps each group under its lock.
  if (shutting_down_) return cb(join_error(ErrorCode::kNotCoordinator, p.member_id));
  if (g->is(GroupState::kDead)) return cb(join_error(ErrorCode::kCoordinatorNotAvailable, p.member_id));
  if (g->is_share() || g->is_streams())
    return cb(join_error(ErrorCode::kInconsistentGroupProtocol));  // Kafka: member id ""
  if (g->is_consumer()) {
    if (!g->consumer->empty()) {  // a classic member of a consumer group (consumer_classic_members.cc)
      std::optional<FlushPoints> written;
      auto r = classic_join_consumer_group(*g, p, written);
      lock.unlock();
      if (written && !store_->flush(*written)) r = join_error(ErrorCode::kCoordinatorNotAvailable, r.member_id);
      return cb(std::move(r));
    }
    store_->write_consumer(g->group_id(), consumer_group_tombstones(g->group_id()));  // an empty one converts
    g->consumer.reset();
  }
  if (over_max_size(*g, p, unknown, config_.max_size)) {
    cb(join_error(ErrorCode::kGroupMaxSizeReached, p.member_id));
  } else if (unknown) {
    join_unknown_member(*g, p, cb);
  } else {
    join_known_member(*g, p, cb);
  }
  // A group created by a join that failed has nothing worth keeping.
  if (created && holds_nothing(*g)) {
    g->transition_to(GroupState::kDead, now_ms());
    forget(*g);
  }
}

void GroupCoordinator::join_unknown_member(GroupMetadata& g, JoinGroupParams& p, JoinCallback& cb) {
  if (!g.supports_protocols(p.protocol_type, p.protocols)) return cb(join_error(ErrorCode::kInconsistentGroupProtocol));
  auto member_id = new_member_id(p.group_instance_id ? *p.group_instance_id : p.client_id);
  if (p.group_instance_id) {
    join_static_member(g, p, member_id, cb);
  } else if (p.require_known_member_id) {
    // KIP-394: the client must come back with this id before it counts.
    schedule_pending_expiry(g, member_id, p.session_timeout_ms);
    cb(join_error(ErrorCode::kMemberIdRequired, member_id));
  } else {
    add_member_and_rebalance(g, p, member_id, cb);
  }
}

void GroupCoordinator::join_known_member(GroupMetadata& g, JoinGroupParams& p, JoinCallback& cb) {
  if (!g.supports_protocols(p.protocol_type, p.protocols))
    return cb(join_error(ErrorCode::kInconsistentGroupProtocol, p.member_id));
  if (g.is_pending(p.member_id)) {
    g.pending_members.erase(p.member_id);
    return add_member_and_rebalance(g, p, p.member_id, cb);
  }
  if (auto err = validate_member(g, p.member_id, p.group_instance_id); err != ErrorCode::kNone)
    return cb(join_error(err, p.member_id));
  auto& m = *g.get(p.member_id);
  switch (g.state()) {
    case GroupState::kPreparingRebalance:
      update_member_and_rebalance(g, m, p, cb);
      break;
    case GroupState::kCompletingRebalance:
      // A retry of a join that already completed: answer it again.
      if (m.matches(p.protocols)) {
        schedule_session_expiry(g, m);
        cb(current_join_result(g, m, false));
      } else {
        update_member_and_rebalance(g, m, p, cb);
      }
      break;
    case GroupState::kStable:
      // The leader rejoining, or changed metadata (new subscription): rebalance.
      if (g.is_leader(m.member_id) || !m.matches(p.protocols)) {
        update_member_and_rebalance(g, m, p, cb);
      } else {
        schedule_session_expiry(g, m);
        cb(current_join_result(g, m, false));
      }
      break;
    case GroupState::kEmpty:
    case GroupState::kDead:
      cb(join_error(ErrorCode::kUnknownMemberId, p.member_id));
      break;
  }
}

// KIP-345: a known group.instance.id takes a new member id and, if nothing
// else changed, keeps its assignment without a rebalance.
void GroupCoordinator::join_static_member(GroupMetadata& g, JoinGroupParams& p, const std::string& new_id,
                                          JoinCallback& cb) {
  auto old_id = g.static_member_id(*p.group_instance_id);
  if (!old_id) return add_member_and_rebalance(g, p, new_id, cb);
  auto* old = g.get(*old_id);
  if (!old) return add_member_and_rebalance(g, p, new_id, cb);
  // The old incarnation's waiting requests are fenced.
  old->answer_waiting(ErrorCode::kFencedInstanceId);
  g.replace_static_member(*p.group_instance_id, *old_id, new_id);
  auto& m = *g.get(new_id);
  m.client_id = p.client_id;
  m.client_host = p.client_host;
  coordinator::log().info("group {}: static member {} rejoined as {}", escaped(g.group_id()),
                          escaped(*p.group_instance_id), escaped(new_id));
  if (g.is(GroupState::kStable) && m.matches(p.protocols)) {
    m.session_timeout_ms = p.session_timeout_ms;
    m.rebalance_timeout_ms = p.rebalance_timeout_ms;
    schedule_session_expiry(g, m);
    bool leader = g.is_leader(new_id);
    cb(current_join_result(g, m, leader));
    return;
  }
  update_member_and_rebalance(g, m, p, cb);
}

void GroupCoordinator::add_member_and_rebalance(GroupMetadata& g, JoinGroupParams& p, const std::string& member_id,
                                                JoinCallback& cb) {
  MemberMetadata m;
  m.member_id = member_id;
  m.group_instance_id = p.group_instance_id;
  m.client_id = p.client_id;
  m.client_host = p.client_host;
  m.rebalance_timeout_ms = p.rebalance_timeout_ms;
  m.session_timeout_ms = p.session_timeout_ms;
  m.protocol_type = p.protocol_type;
  m.protocols = std::move(p.protocols);
  m.awaiting_join = std::move(cb);
  g.add(std::move(m));
  schedule_session_expiry(g, *g.get(member_id));
  if (g.is(GroupState::kPreparingRebalance))
    try_complete_join(g);
  else
    maybe_prepare_rebalance(g, "adding member " + member_id);
}

void GroupCoordinator::update_member_and_rebalance(GroupMetadata& g, MemberMetadata& m, JoinGroupParams& p,
                                                   JoinCallback& cb) {
  // A second JoinGroup while the first still waits (a client retry on a new
  // connection): the older one is answered so no request is left hanging.
  if (auto old = std::exchange(m.awaiting_join, nullptr)) old(join_error(ErrorCode::kRebalanceInProgress, m.member_id));
  m.protocols = std::move(p.protocols);
  m.rebalance_timeout_ms = p.rebalance_timeout_ms;
  m.session_timeout_ms = p.session_timeout_ms;
  m.client_id = p.client_id;
  m.client_host = p.client_host;
  m.awaiting_join = std::move(cb);
  schedule_session_expiry(g, m);
  if (g.is(GroupState::kPreparingRebalance))
    try_complete_join(g);
  else
    maybe_prepare_rebalance(g, "updating member " + m.member_id);
}

JoinGroupResult GroupCoordinator::current_join_result(GroupMetadata& g, const MemberMetadata& m, bool skip_assignment) {
  JoinGroupResult r;
  r.generation_id = g.generation_id;
  r.protocol_type = g.protocol_type;
  r.protocol_name = g.protocol_name;
  r.leader = g.leader_id();
  r.member_id = m.member_id;
  r.skip_assignment = skip_assignment;
  if (g.is_leader(m.member_id)) r.members = g.current_member_metadata();
  return r;
}

void GroupCoordinator::maybe_prepare_rebalance(GroupMetadata& g, const std::string& reason) {
  if (g.can_transition_to(GroupState::kPreparingRebalance)) prepare_rebalance(g, reason);
}

void GroupCoordinator::prepare_rebalance(GroupMetadata& g, const std::string& reason) {
  if (g.is(GroupState::kCompletingRebalance)) {
    // The assignment being synced is void: its waiters must rejoin.
    for (auto& [id, m] : g.members()) {
      m.assignment.clear();
      if (auto cb = std::exchange(m.awaiting_sync, nullptr)) cb(sync_error(ErrorCode::kRebalanceInProgress));
    }
  }
  g.pending_sync.clear();
  ++g.sync_epoch;
  const bool was_empty = g.is(GroupState::kEmpty);
  g.transition_to(GroupState::kPreparingRebalance, now_ms());
  const uint64_t epoch = ++g.join_epoch;
  coordinator::log().info("group {}: preparing to rebalance (generation {}): {}", escaped(g.group_id()),
                          g.generation_id, escaped(reason));
  auto weak = g.weak_from_this();
  if (was_empty && config_.initial_rebalance_delay_ms > 0) {
    g.initial_delay_pending = true;
    auto delay = std::min(config_.initial_rebalance_delay_ms, g.max_rebalance_timeout_ms());
    timers_.schedule_after(std::chrono::milliseconds(delay), [this, weak, epoch] { on_initial_delay(weak, epoch); });
    return;
  }
  g.initial_delay_pending = false;
  timers_.schedule_after(std::chrono::milliseconds(g.max_rebalance_timeout_ms()),
                         [this, weak, epoch] { on_rebalance_timeout(weak, epoch); });
  try_complete_join(g);
}

void GroupCoordinator::try_complete_join(GroupMetadata& g) {
  if (g.is(GroupState::kPreparingRebalance) && !g.initial_delay_pending && g.all_members_joined()) complete_join(g);
}

// Kafka's onCompleteJoin: members that did not rejoin are dropped, the next
// generation starts and every waiting JoinGroup is answered (the leader with
// the members' metadata).
void GroupCoordinator::complete_join(GroupMetadata& g) {
  ++g.join_epoch;  // the rebalance timer is now stale
  g.initial_delay_pending = false;
  std::vector<std::string> gone;
  for (auto& [id, m] : g.members())
    if (!m.is_awaiting_join()) gone.push_back(id);
  for (const auto& id : gone) {
    coordinator::log().info("group {}: removing member {}: it did not rejoin in time", escaped(g.group_id()),
                            escaped(id));
    g.remove(id);
  }
  g.init_next_generation(now_ms());
  persist(g);
  coordinator::log().info("group {}: generation {} with {} member(s), protocol {}", escaped(g.group_id()),
                          g.generation_id, g.size(), escaped(g.protocol_name.value_or("-")));
  if (g.is(GroupState::kEmpty)) return;
  for (auto& [id, m] : g.members()) {
    auto cb = std::exchange(m.awaiting_join, nullptr);
    schedule_session_expiry(g, m);
    if (cb) cb(current_join_result(g, m, false));
  }
  const uint64_t epoch = ++g.sync_epoch;
  timers_.schedule_after(std::chrono::milliseconds(g.max_rebalance_timeout_ms()),
                         [this, weak = g.weak_from_this(), epoch] { on_sync_timeout(weak, epoch); });
}

void GroupCoordinator::remove_member_and_update_group(GroupMetadata& g, const std::string& member_id,
                                                      const std::string& reason) {
  auto* m = g.get(member_id);
  if (!m) return;
  if (auto cb = std::exchange(m->awaiting_join, nullptr)) cb(join_error(ErrorCode::kUnknownMemberId));
  if (auto cb = std::exchange(m->awaiting_sync, nullptr)) cb(sync_error(ErrorCode::kUnknownMemberId));
  g.remove(member_id);
  switch (g.state()) {
    case GroupState::kStable:
    case GroupState::kCompletingRebalance:
      maybe_prepare_rebalance(g, "removing member " + member_id + " on " + reason);
      break;
    case GroupState::kPreparingRebalance:
      try_complete_join(g);
      break;
    default:
      break;
  }
}

ErrorCode GroupCoordinator::validate_member(GroupMetadata& g, const std::string& member_id,
                                            const std::optional<std::string>& instance_id) const {
  if (instance_id) {
    auto current = g.static_member_id(*instance_id);
    if (current && *current != member_id) return ErrorCode::kFencedInstanceId;
  }
  if (!g.has(member_id)) return ErrorCode::kUnknownMemberId;
  return ErrorCode::kNone;
}

}  // namespace skiff::group
