// GroupCoordinator: classic members of a consumer group (KIP-848's online
// migration; Kafka's GroupMetadataManager classicGroupJoinToConsumerGroup,
// classicGroupSyncToConsumerGroup, classicGroupHeartbeatToConsumerGroup,
// classicGroupLeaveToConsumerGroup). A consumer still on the classic
// protocol keeps sending JoinGroup / SyncGroup / Heartbeat / LeaveGroup; they
// are answered from the consumer group's target assignment:
//   - JoinGroup updates the member (subscription, owned partitions and rack
//     from its ConsumerProtocolSubscription, ClassicMemberMetadata), bumps the
//     group epoch when its subscription changed, recomputes the target and
//     reconciles the member with the partitions it says it owns (so
//     incremental revocation holds as for a consumer-protocol member); it is
//     answered at once with its member epoch as the generation and no leader
//     (every classic member is a follower: the broker assigns).
//   - SyncGroup returns its current assignment in the consumer protocol's
//     format (the version of its subscription metadata).
//   - Heartbeat answers REBALANCE_IN_PROGRESS while its epoch is behind the
//     group's, it must revoke, or partitions it waits for are free: it
//     rejoins to reconcile.
//   - As Kafka, a member told to rejoin must send JoinGroup, and one whose
//     JoinGroup was answered must send SyncGroup, within its rebalance
//     timeout; otherwise it is removed (await_classic), so a member that
//     heartbeats but never rejoins cannot hold its place forever.
// Nothing waits: each answers from the group's state under its lock, and the
// records are flushed by the caller outside it.
#include <fmt/format.h>

#include <algorithm>

#include "common/log_escape.h"
#include "coordinator/group/group_coordinator.h"
#include "coordinator/runtime/coordinator_log.h"
#include "protocol/consumer_protocol.h"

namespace skiff::group {
namespace {

// Kafka's ConsumerGroup.supportsClassicProtocols: type "consumer", and one
// protocol every classic member supports.
bool supports_classic(const ConsumerGroup& cg, const JoinGroupParams& p) {
  if (p.protocol_type != protocol::kConsumerProtocolType || p.protocols.empty()) return false;
  return std::any_of(p.protocols.begin(), p.protocols.end(), [&](const Protocol& proto) {
    return std::all_of(cg.members.begin(), cg.members.end(), [&](const auto& kv) {
      const auto& c = kv.second.classic;
      return !c || kv.first == p.member_id ||
             std::any_of(c->protocols.begin(), c->protocols.end(), [&](auto& q) { return q.name == proto.name; });
    });
  });
}

consumer::Assignment to_ids(const protocol::NamedPartitions& named, const ConsumerGroup& cg,
                            const TopicResolver& resolve) {
  consumer::Assignment out;
  for (const auto& [name, ps] : named) {
    std::optional<consumer::TopicMetadata> t;
    if (auto it = cg.subscribed_topics.find(name); it != cg.subscribed_topics.end()) t = it->second;
    if (!t && resolve) t = resolve(name);
    if (t && !ps.empty()) out[t->id].insert(ps.begin(), ps.end());
  }
  return out;
}

protocol::NamedPartitions to_names(const consumer::Assignment& a, const ConsumerGroup& cg) {
  std::map<Uuid, std::string> names;
  for (const auto& [name, t] : cg.subscribed_topics) names[t.id] = name;
  protocol::NamedPartitions out;
  for (const auto& [t, ps] : a)
    if (auto n = names.find(t); n != names.end()) out[n->second] = ps;
  return out;
}

// Whether a partition of the member's target that it does not hold yet is
// still owned by another member (Kafka's waitingOnUnreleasedPartition).
bool waiting_on_unreleased(const ConsumerGroup& cg, const ConsumerGroupMember& m) {
  auto t = cg.target.find(m.member_id);
  if (t == cg.target.end()) return false;
  for (const auto& [topic, ps] : t->second)
    for (int32_t p : ps)
      if (!consumer::contains(m.assignment.assigned, topic, p) && cg.owners.epoch(topic, p) != -1) return true;
  return false;
}

// Takes what a classic member's JoinGroup says about it; true when its
// subscription changed (the group epoch moves).
bool update_classic_member(ConsumerGroupMember& m, const std::string& id, const JoinGroupParams& p,
                           const protocol::ConsumerSubscription& sub) {
  m.member_id = id;
  m.instance_id = p.group_instance_id;
  std::vector<std::string> names = sub.topics;
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  const bool changed = names != m.subscribed_names;
  m.subscribed_names = std::move(names);
  if (sub.rack_id) m.rack_id = sub.rack_id;
  m.rebalance_timeout_ms = p.rebalance_timeout_ms;
  m.server_assignor.reset();
  m.client_id = p.client_id;
  m.client_host = p.client_host;
  m.classic = ClassicMemberMetadata{p.session_timeout_ms, p.protocols};
  return changed;
}

}  // namespace

ConsumerGroupMember* GroupCoordinator::classic_member(GroupMetadata& g, const std::string& member_id,
                                                      const std::optional<std::string>& instance_id, ErrorCode& error) {
  auto& cg = *g.consumer;
  if (instance_id) {
    auto s = cg.static_members.find(*instance_id);
    if (s != cg.static_members.end() && s->second != member_id) return error = ErrorCode::kFencedInstanceId, nullptr;
  }
  auto* m = cg.get(member_id);
  if (!m || !m->uses_classic()) return error = ErrorCode::kUnknownMemberId, nullptr;
  return m;
}

JoinGroupResult GroupCoordinator::classic_join_consumer_group(GroupMetadata& g, JoinGroupParams& p,
                                                              std::optional<FlushPoints>& written) {
  auto& cg = *g.consumer;
  const bool unknown = p.member_id.empty();
  const std::string id = unknown ? new_member_id(p.client_id) : p.member_id;
  const bool known = cg.get(id) || (p.group_instance_id && cg.static_members.contains(*p.group_instance_id));
  if (!known && cg.members.size() >= static_cast<size_t>(config_.consumer_max_size))
    return join_error(ErrorCode::kGroupMaxSizeReached, id);
  if (!supports_classic(cg, p)) return join_error(ErrorCode::kInconsistentGroupProtocol, id);
  if (unknown && p.require_known_member_id && !p.group_instance_id)
    return join_error(ErrorCode::kMemberIdRequired, id);  // KIP-394, as for a classic group
  auto sub = protocol::decode_subscription(p.protocols.front().metadata);
  if (!sub) return join_error(ErrorCode::kInconsistentGroupProtocol, id);

  const auto before = cg.image();
  if (p.group_instance_id) {  // a static member's new incarnation takes over its partitions and epoch
    auto s = cg.static_members.find(*p.group_instance_id);
    if (s != cg.static_members.end() && s->second != id) cg.rename(s->second, id);
  }
  auto [it, fresh] = cg.members.try_emplace(id);
  auto& m = it->second;
  if (p.group_instance_id) cg.static_members[*p.group_instance_id] = id;
  bool bump = update_classic_member(m, id, p, *sub) || fresh;
  if (!p.resolve) p.resolve = topics_;
  bump |= cg.refresh_subscribed_topics(p.resolve);
  if (bump) ++cg.group_epoch;
  cg.maybe_compute_target(config_.consumer_default_assignor);
  const auto owned = to_ids(sub->owned, cg, p.resolve);
  reconcile_consumer_member(g, m, &owned);
  if (!g.consumer->get(id)) {  // fenced by the reconciliation
    written = write_consumer_change(g, before);
    return join_error(ErrorCode::kUnknownMemberId, id);
  }
  schedule_consumer_session(g, m);
  await_classic(g, m, ConsumerGroupMember::ClassicWait::kSync);
  JoinGroupResult r;
  r.member_id = id;
  r.generation_id = m.assignment.member_epoch;
  r.protocol_type = protocol::kConsumerProtocolType;
  r.protocol_name = p.protocols.front().name;
  coordinator::log().debug("group {}: classic member {} joined the consumer group at epoch {} (group epoch {})",
                           escaped(g.group_id()), escaped(id), r.generation_id, cg.group_epoch);
  written = write_consumer_change(g, before);
  if (!written) return join_error(ErrorCode::kCoordinatorNotAvailable, id);
  return r;
}

SyncGroupResult GroupCoordinator::classic_sync_consumer_group(GroupMetadata& g, const SyncGroupParams& p) {
  ErrorCode error = ErrorCode::kNone;
  auto* m = classic_member(g, p.member_id, p.group_instance_id, error);
  if (!m) return SyncGroupResult{error, {}, {}, {}};
  if (p.generation_id != m->assignment.member_epoch) return sync_error(ErrorCode::kIllegalGeneration);
  const auto& first = m->classic->protocols.front();
  if ((p.protocol_type && *p.protocol_type != protocol::kConsumerProtocolType) ||
      (p.protocol_name && *p.protocol_name != first.name))
    return sync_error(ErrorCode::kInconsistentGroupProtocol);
  // A new epoch since its join: it must rejoin, unless it is still revoking
  // (then this round's assignment, without the revoked partitions, stands).
  if (g.consumer->group_epoch > m->assignment.member_epoch &&
      m->assignment.state != consumer::MemberState::kUnrevokedPartitions) {
    await_classic(g, *m, ConsumerGroupMember::ClassicWait::kJoin);
    return sync_error(ErrorCode::kRebalanceInProgress);
  }
  schedule_consumer_session(g, *m);
  await_classic(g, *m, ConsumerGroupMember::ClassicWait::kNone);
  return SyncGroupResult{ErrorCode::kNone, protocol::kConsumerProtocolType, first.name,
                         protocol::encode_assignment(protocol::embedded_protocol_version(first.metadata),
                                                     to_names(m->assignment.assigned, *g.consumer))};
}

ErrorCode GroupCoordinator::classic_heartbeat_consumer_group(GroupMetadata& g, const HeartbeatParams& p) {
  ErrorCode error = ErrorCode::kNone;
  auto* m = classic_member(g, p.member_id, p.group_instance_id, error);
  if (!m) return error;
  if (p.generation_id != m->assignment.member_epoch) return ErrorCode::kIllegalGeneration;
  schedule_consumer_session(g, *m);
  const auto state = m->assignment.state;
  if (m->assignment.member_epoch < g.consumer->group_epoch || state == consumer::MemberState::kUnrevokedPartitions ||
      (state == consumer::MemberState::kUnreleasedPartitions && !waiting_on_unreleased(*g.consumer, *m))) {
    await_classic(g, *m, ConsumerGroupMember::ClassicWait::kJoin);
    return ErrorCode::kRebalanceInProgress;
  }
  return ErrorCode::kNone;
}

void GroupCoordinator::await_classic(GroupMetadata& g, ConsumerGroupMember& m, ConsumerGroupMember::ClassicWait what) {
  using enum ConsumerGroupMember::ClassicWait;
  if (what == kJoin && m.classic_wait == kJoin) return;  // the first request to rejoin starts the clock
  m.classic_wait = what;
  const uint64_t round = ++m.classic_wait_round;
  if (what == kNone) return;
  timers_.schedule_after(
      std::chrono::milliseconds(std::max(m.rebalance_timeout_ms, 0)),
      [this, weak = g.weak_from_this(), id = m.member_id, round] { on_classic_wait_timeout(weak, id, round); });
}

void GroupCoordinator::on_classic_wait_timeout(const std::weak_ptr<GroupMetadata>& weak, const std::string& member_id,
                                               uint64_t round) {
  auto g = weak.lock();
  if (!g) return;
  std::lock_guard lock(g->mu);
  auto* m = g->consumer ? g->consumer->get(member_id) : nullptr;
  if (!m || !m->uses_classic() || m->classic_wait_round != round) return;
  const char* what = m->classic_wait == ConsumerGroupMember::ClassicWait::kJoin ? "rejoin" : "sync";
  const auto epoch = expire_consumer_member(*g, member_id);
  coordinator::log().info(
      "group {}: classic member {} did not {} within its rebalance timeout; removed (group epoch {})",
      escaped(g->group_id()), escaped(member_id), what, epoch);
}

LeaveGroupResult GroupCoordinator::classic_leave_consumer_group(GroupMetadata& g,
                                                                const std::vector<MemberIdentity>& members,
                                                                std::optional<FlushPoints>& written) {
  auto& cg = *g.consumer;
  const auto before = cg.image();
  LeaveGroupResult r;
  for (const auto& who : members) {
    std::string id = who.member_id;
    if (id.empty() && who.group_instance_id) {  // admin removal by instance id (KIP-345)
      auto s = cg.static_members.find(*who.group_instance_id);
      if (s == cg.static_members.end()) {
        r.members.push_back(ErrorCode::kUnknownMemberId);
        continue;
      }
      id = s->second;
    }
    ErrorCode error = ErrorCode::kNone;
    if (!classic_member(g, id, who.group_instance_id, error)) {
      r.members.push_back(error);
      continue;
    }
    cg.remove(id);
    coordinator::log().info("group {}: classic member {} left the consumer group (group epoch {})",
                            escaped(g.group_id()), escaped(id), cg.group_epoch);
    r.members.push_back(ErrorCode::kNone);
  }
  written = write_consumer_change(g, before);
  return r;
}

}  // namespace skiff::group
