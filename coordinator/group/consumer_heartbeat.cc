// GroupCoordinator: KIP-848's ConsumerGroupHeartbeat (Kafka's
// GroupMetadataManager.consumerGroupHeartbeat): validate the request, find or
// create the consumer group, join / heartbeat / leave, recompute the target
// assignment when the group epoch moved, reconcile the member towards it, and
// arm the session and rebalance (revocation) timers. Answers at once: nothing
// here waits but the fsync of the group's ConsumerGroup* records
// (consumer_group_log.h), outside the group's lock.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "common/log_escape.h"
#include "coordinator/group/group_coordinator.h"
#include "coordinator/group/member_session.h"
#include "coordinator/runtime/coordinator_log.h"

namespace skiff::group {
namespace {

constexpr int32_t kLeaveEpoch = -1;
constexpr int32_t kStaticLeaveEpoch = -2;

ConsumerHeartbeatResult failed(ErrorCode e, std::optional<std::string> message = std::nullopt) {
  ConsumerHeartbeatResult r;
  r.error = e;
  r.message = std::move(message);
  return r;
}

bool empty_string(const std::optional<std::string>& s) { return s && s->empty(); }

// Kafka's throwIfConsumerGroupHeartbeatRequestIsInvalid: a message for
// INVALID_REQUEST, or nothing.
std::optional<std::string> invalid_request(const ConsumerHeartbeatParams& p) {
  if (p.group_id.empty()) return "GroupId can't be empty.";
  if (empty_string(p.instance_id)) return "InstanceId can't be empty.";
  if (empty_string(p.rack_id)) return "RackId can't be empty.";
  if (p.member_id.empty() && (p.version >= 1 || p.member_epoch != 0)) return "MemberId can't be empty.";
  if (p.member_epoch == 0) {
    if (p.rebalance_timeout_ms == -1) return "RebalanceTimeoutMs must be provided in first request.";
    if (!p.owned || !p.owned->empty()) return "TopicPartitions must be empty when (re-)joining.";
    if (!p.subscribed_names && !p.subscribed_regex)
      return "Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.";
  } else if (p.member_epoch == kStaticLeaveEpoch) {
    if (!p.instance_id) return "InstanceId can't be null.";
  } else if (p.member_epoch < kStaticLeaveEpoch) {
    return "MemberEpoch is invalid.";
  }
  return std::nullopt;
}

std::vector<std::string> sorted_unique(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

}  // namespace

ConsumerHeartbeatResult GroupCoordinator::consumer_heartbeat(const ConsumerHeartbeatParams& p) {
  if (shutting_down_) return failed(ErrorCode::kNotCoordinator);
  if (auto why = invalid_request(p)) return failed(ErrorCode::kInvalidRequest, why);
  if (p.subscribed_regex && !p.subscribed_regex->empty()) {  // checked before the group changes
    if (auto why = invalid_regex_message(*p.subscribed_regex)) return failed(ErrorCode::kInvalidRegularExpression, why);
  }
  const auto& assignors = config_.consumer_assignors;  // group.consumer.assignors
  if (p.server_assignor && std::find(assignors.begin(), assignors.end(), *p.server_assignor) == assignors.end())
    return failed(ErrorCode::kUnsupportedAssignor,
                  fmt::format("ServerAssignor {} is not supported. Supported assignors: {}.", *p.server_assignor,
                              fmt::join(assignors, ", ")));
  GroupPtr g = p.member_epoch == 0 ? get_or_create(p.group_id) : find(p.group_id);
  if (!g) return failed(ErrorCode::kUnknownMemberId, fmt::format("Consumer group {} not found.", p.group_id));
  std::optional<FlushPoints> written;
  ConsumerHeartbeatResult r;
  {
    std::lock_guard lock(g->mu);
    r = consumer_heartbeat_locked(*g, p, written);
  }
  // Answered once durable, as a commit: fsync outside the group's lock.
  if (written && !store_->flush(*written)) return failed(ErrorCode::kCoordinatorNotAvailable);
  return r;
}

ConsumerHeartbeatResult GroupCoordinator::consumer_heartbeat_locked(GroupMetadata& g, const ConsumerHeartbeatParams& p,
                                                                    std::optional<FlushPoints>& written) {
  if (shutting_down_) return failed(ErrorCode::kNotCoordinator);
  if (g.is(GroupState::kDead)) return failed(ErrorCode::kCoordinatorNotAvailable);
  const bool joining = p.member_epoch == 0;
  ConsumerGroupImage before;  // empty: a group created or converted now writes all of itself
  if (g.is_share() || g.is_streams())
    return failed(ErrorCode::kGroupIdNotFound, fmt::format("Group {} is not a consumer group.", p.group_id));
  if (!g.is_consumer()) {
    if (joining && g.is(GroupState::kEmpty) && g.members().empty()) {
      g.consumer = std::make_unique<ConsumerGroup>();  // Kafka converts an empty classic group
    } else if (joining) {
      if (auto refused = upgrade_classic_group(g, p)) return *refused;  // online upgrade (group_migration.cc)
    } else {
      return failed(ErrorCode::kGroupIdNotFound, fmt::format("Group {} is not a consumer group.", p.group_id));
    }
  } else {
    before = g.consumer->image();
  }
  auto r = p.member_epoch == kLeaveEpoch || p.member_epoch == kStaticLeaveEpoch ? consumer_leave(g, p)
                                                                                : consumer_join_or_beat(g, p);
  written = write_consumer_change(g, before);
  if (!written) return failed(ErrorCode::kCoordinatorNotAvailable);
  return r;
}

std::optional<FlushPoints> GroupCoordinator::persist_consumer(GroupMetadata& g, const ConsumerGroupImage& before) {
  auto records = consumer_records_since(g.group_id(), before, *g.consumer);
  if (records.empty()) return FlushPoints{};
  return store_->write_consumer(g.group_id(), records);
}

ConsumerHeartbeatResult GroupCoordinator::consumer_leave(GroupMetadata& g, const ConsumerHeartbeatParams& p) {
  auto& cg = *g.consumer;
  std::string id = p.member_id;
  if (p.instance_id) {
    auto s = cg.static_members.find(*p.instance_id);
    if (s == cg.static_members.end())
      return failed(ErrorCode::kUnknownMemberId, fmt::format("Instance id {} is unknown.", *p.instance_id));
    if (s->second != p.member_id)
      return failed(ErrorCode::kFencedInstanceId,
                    fmt::format("Static member {} with instance id {} was fenced by member {}.", p.member_id,
                                *p.instance_id, s->second));
  }
  auto* m = cg.get(id);
  if (!m)
    return failed(ErrorCode::kUnknownMemberId, fmt::format("Member {} is not a member of group {}.", id, g.group_id()));
  ConsumerHeartbeatResult r;
  r.member_id = id;
  r.member_epoch = p.member_epoch;
  if (p.member_epoch == kStaticLeaveEpoch) {
    // Kafka keeps a static member that leaves with its partitions until its
    // session expires or its instance id joins again.
    m->assignment.previous_member_epoch = m->assignment.member_epoch;
    m->assignment.member_epoch = kStaticLeaveEpoch;
    coordinator::log().info("group {}: static member {} left temporarily", escaped(g.group_id()), escaped(id));
    return r;
  }
  cg.remove(id);
  coordinator::log().info("group {}: member {} left (group epoch {})", escaped(g.group_id()), escaped(id),
                          cg.group_epoch);
  return r;
}

// The member the heartbeat is from: found, created (epoch 0), or taking the
// place of a static member that left (epoch -2). Null with `out` set to the
// error otherwise.
ConsumerGroupMember* GroupCoordinator::consumer_member_for(GroupMetadata& g, const ConsumerHeartbeatParams& p,
                                                           ConsumerHeartbeatResult& out) {
  auto& cg = *g.consumer;
  if (auto* m = cg.get(p.member_id)) {
    if (p.member_epoch == 0) return m;  // a rejoin: reconciled from what it has
    if (auto why = consumer::check_member_epoch(m->assignment, p.member_epoch, p.owned ? &*p.owned : nullptr)) {
      out = failed(ErrorCode::kFencedMemberEpoch, why);
      return nullptr;
    }
    return m;
  }
  if (p.member_epoch != 0) {
    out = failed(ErrorCode::kUnknownMemberId,
                 fmt::format("Member {} is not a member of group {}.", p.member_id, g.group_id()));
    return nullptr;
  }
  ConsumerGroupMember fresh;
  if (p.instance_id) {
    if (auto s = cg.static_members.find(*p.instance_id); s != cg.static_members.end()) {
      auto* old = cg.get(s->second);
      if (old && old->assignment.member_epoch != kStaticLeaveEpoch) {
        out =
            failed(ErrorCode::kUnreleasedInstanceId,
                   fmt::format("Static member {} with instance id {} is not released yet.", s->second, *p.instance_id));
        return nullptr;
      }
      if (old) {  // the new member id takes over the old one's partitions, target and epoch
        fresh.assignment = old->assignment;
        fresh.assignment.member_epoch = old->assignment.previous_member_epoch;
        if (auto t = cg.target.find(old->member_id); t != cg.target.end()) cg.target[p.member_id] = t->second;
        cg.owners.remove(old->assignment);
        cg.owners.update({}, fresh.assignment);
        cg.target.erase(old->member_id);
        cg.members.erase(old->member_id);
      }
    }
  } else if (cg.members.size() >= static_cast<size_t>(config_.consumer_max_size)) {
    out = failed(
        ErrorCode::kGroupMaxSizeReached,
        fmt::format("The consumer group has reached its maximum capacity of {} members.", config_.consumer_max_size));
    return nullptr;
  }
  fresh.member_id = p.member_id;
  fresh.instance_id = p.instance_id;
  if (p.instance_id) cg.static_members[*p.instance_id] = p.member_id;
  return &cg.members.emplace(p.member_id, std::move(fresh)).first->second;
}

namespace {

// What a heartbeat sets on its member; true when the subscription changed
// (names or regex), which bumps the group epoch.
bool update_member(ConsumerGroupMember& m, const ConsumerHeartbeatParams& p) {
  bool changed = false;
  if (p.subscribed_names) {
    auto names = sorted_unique(*p.subscribed_names);
    if (names != m.subscribed_names) {
      m.subscribed_names = std::move(names);
      changed = true;
    }
  }
  if (p.subscribed_regex) {
    auto regex = p.subscribed_regex->empty() ? std::nullopt : p.subscribed_regex;  // "" clears it, as in Kafka
    if (regex != m.subscribed_regex) {
      m.subscribed_regex = std::move(regex);
      changed = true;
    }
  }
  if (p.rebalance_timeout_ms != -1) m.rebalance_timeout_ms = p.rebalance_timeout_ms;
  if (p.server_assignor != m.server_assignor && p.member_epoch == 0) m.server_assignor = p.server_assignor;
  if (p.rack_id) m.rack_id = p.rack_id;
  m.client_id = p.client_id;
  m.client_host = p.client_host;
  return changed;
}

}  // namespace

ConsumerHeartbeatResult GroupCoordinator::consumer_join_or_beat(GroupMetadata& g, const ConsumerHeartbeatParams& p) {
  auto& cg = *g.consumer;
  ConsumerHeartbeatResult r;
  auto* m = consumer_member_for(g, p, r);
  if (!m) return r;
  // One epoch bump for whatever changed: a new member, its subscription, or
  // the subscribed topics' metadata (Kafka's consumerGroupHeartbeat).
  bool bump = !cg.target.contains(m->member_id) && m->assignment.member_epoch == 0;
  bump |= update_member(*m, p);
  cg.refresh_regexes(p.topics_version, p.list_topics,
                     std::chrono::milliseconds(config_.consumer_regex_refresh_min_interval_ms));
  bump |= cg.refresh_subscribed_topics(p.resolve);
  if (bump) ++cg.group_epoch;
  cg.maybe_compute_target(config_.consumer_default_assignor);

  const auto before = m->assignment.assigned;
  reconcile_consumer_member(g, *m, p.owned ? &*p.owned : nullptr);
  if (!g.consumer->get(p.member_id))  // fenced by the reconciliation
    return failed(ErrorCode::kFencedMemberEpoch,
                  "The consumer group member is in a unknown state. The member must abandon all its partitions "
                  "and rejoin.");
  schedule_consumer_session(g, *m);

  r.member_id = m->member_id;
  r.member_epoch = m->assignment.member_epoch;
  r.heartbeat_interval_ms = consumer_heartbeat_interval_ms(g.group_id());  // the group's config, else the broker's
  const bool full = p.rebalance_timeout_ms != -1 && (p.subscribed_names || p.subscribed_regex) && p.owned;
  if (p.member_epoch == 0 || full || before != m->assignment.assigned) r.assignment = m->assignment.assigned;
  return r;
}

void GroupCoordinator::reconcile_consumer_member(GroupMetadata& g, ConsumerGroupMember& m,
                                                 const consumer::Assignment* owned) {
  auto& cg = *g.consumer;
  static const consumer::Assignment kNone;
  auto t = cg.target.find(m.member_id);
  const auto subscribed = cg.subscribed_ids(m);
  consumer::ReconcileInput in{cg.assignment_epoch, t == cg.target.end() ? &kNone : &t->second, &subscribed, owned,
                              &cg.owners};
  auto result = consumer::reconcile(m.assignment, in);
  if (result.fenced) {
    coordinator::log().info("group {}: member {} fenced: {}", escaped(g.group_id()), escaped(m.member_id),
                            *result.fenced);
    cg.remove(m.member_id);
    return;
  }
  const bool was_revoking = m.assignment.state == consumer::MemberState::kUnrevokedPartitions;
  if (!cg.set_assignment(m, result.member)) {
    coordinator::log().warn("group {}: member {}: reconciliation would give a partition two owners; kept as it was",
                            escaped(g.group_id()), escaped(m.member_id));
    return;
  }
  if (!was_revoking && m.assignment.state == consumer::MemberState::kUnrevokedPartitions) {
    const uint64_t round = ++m.revocation_round;
    timers_.schedule_after(
        std::chrono::milliseconds(std::max(m.rebalance_timeout_ms, 0)),
        [this, weak = g.weak_from_this(), id = m.member_id, round] { on_consumer_rebalance_timeout(weak, id, round); });
  }
}

void GroupCoordinator::schedule_consumer_session(GroupMetadata& g, ConsumerGroupMember& m) {
  // A classic member keeps the session timeout of its JoinGroup (Kafka's classicProtocolSessionTimeout).
  const int32_t session_ms = m.classic ? m.classic->session_timeout_ms : consumer_session_timeout_ms(g.group_id());
  member_session::arm(timers_, m, session_ms, [this, weak = g.weak_from_this(), id = m.member_id](uint64_t round) {
    on_consumer_session_check(weak, id, round);
  });
}

void GroupCoordinator::on_consumer_session_check(const std::weak_ptr<GroupMetadata>& weak, const std::string& member_id,
                                                 uint64_t round) {
  auto g = weak.lock();
  if (!g) return;
  std::lock_guard lock(g->mu);
  auto* m = g->consumer ? g->consumer->get(member_id) : nullptr;
  if (!m || !member_session::expired(timers_, *m, round, [this, weak, member_id](uint64_t next) {
        on_consumer_session_check(weak, member_id, next);
      }))
    return;
  const auto epoch = expire_consumer_member(*g, member_id);
  coordinator::log().info("group {}: member {} session expired (group epoch {})", escaped(g->group_id()),
                          escaped(member_id), epoch);
}

int32_t GroupCoordinator::expire_consumer_member(GroupMetadata& g, const std::string& member_id) {
  const auto before = g.consumer->image();
  g.consumer->remove(member_id);
  const auto epoch = g.consumer->group_epoch;  // before a downgrade may turn the group classic
  write_consumer_change(g, before);            // not waited for: nobody is answered
  return epoch;
}

void GroupCoordinator::on_consumer_rebalance_timeout(const std::weak_ptr<GroupMetadata>& weak,
                                                     const std::string& member_id, uint64_t round) {
  auto g = weak.lock();
  if (!g) return;
  std::lock_guard lock(g->mu);
  auto* m = g->consumer ? g->consumer->get(member_id) : nullptr;
  if (!m || m->revocation_round != round || m->assignment.state != consumer::MemberState::kUnrevokedPartitions) return;
  expire_consumer_member(*g, member_id);
  coordinator::log().info("group {}: member {} did not revoke its partitions within its rebalance timeout; fenced",
                          escaped(g->group_id()), escaped(member_id));
}

ConsumerGroupDescription GroupCoordinator::describe_consumer_group(const std::string& group_id) {
  ConsumerGroupDescription d;
  d.group_id = group_id;
  if (shutting_down_) return d.error = ErrorCode::kNotCoordinator, d;
  auto g = find(group_id);
  if (!g) return d.error = ErrorCode::kGroupIdNotFound, d.message = "Group " + group_id + " not found.", d;
  std::lock_guard lock(g->mu);
  if (g->is(GroupState::kDead) || !g->is_consumer()) {  // a share group too
    d.error = ErrorCode::kGroupIdNotFound;
    d.message =
        g->is_consumer() ? "Group " + group_id + " not found." : "Group " + group_id + " is not a consumer group.";
    return d;
  }
  const auto& cg = *g->consumer;
  d.state = cg.state();
  d.group_epoch = cg.group_epoch;
  d.assignment_epoch = cg.assignment_epoch;
  d.assignor = cg.preferred_assignor(config_.consumer_default_assignor);
  for (const auto& [name, t] : cg.subscribed_topics) d.topic_names[t.id] = name;
  for (const auto& [id, m] : cg.members) {
    auto t = cg.target.find(id);
    d.members.push_back({id, m.instance_id, m.rack_id, m.assignment.member_epoch, m.client_id, m.client_host,
                         m.subscribed_names, m.subscribed_regex, m.assignment.assigned,
                         t == cg.target.end() ? consumer::Assignment{} : t->second, m.uses_classic()});
  }
  return d;
}

}  // namespace skiff::group
