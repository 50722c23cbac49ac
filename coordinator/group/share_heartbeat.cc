// GroupCoordinator: KIP-932's ShareGroupHeartbeat (Kafka 4.4's
// GroupMetadataManager.shareGroupHeartbeat / shareGroupLeave): validate,
// find or create the share group, join / heartbeat / leave, bump the group
// epoch on a subscription or subscribed-metadata change (or when partitions
// got initialized and are not assigned yet), recompute the target with the
// simple assignor (at most every share.assignment.interval.ms), hand the
// member its target at once, and arm its session timer. Partitions whose
// share state is not initialized yet are asked of the ShareStateInitializer
// port after the answer, outside the group's lock
// (GroupCoordinatorService.persisterInitialize); its answer marks them
// initialized and the next heartbeat assigns them.
#include <fmt/format.h>

#include <algorithm>

#include "common/log_escape.h"
#include "common/wall_clock.h"
#include "coordinator/group/group_coordinator.h"
#include "coordinator/group/member_session.h"
#include "coordinator/runtime/coordinator_log.h"

namespace skiff::group {
namespace {

constexpr int32_t kShareLeaveEpoch = -1;

ShareHeartbeatResult share_failed(ErrorCode e, std::optional<std::string> message = std::nullopt) {
  ShareHeartbeatResult r;
  r.error = e;
  r.message = std::move(message);
  return r;
}

// Kafka's throwIfShareGroupHeartbeatRequestIsInvalid.
std::optional<std::string> invalid_share_request(const ShareHeartbeatParams& p) {
  if (p.member_id.empty()) return "MemberId can't be empty.";
  if (p.group_id.empty()) return "GroupId can't be empty.";
  if (p.rack_id && p.rack_id->empty()) return "RackId can't be empty.";
  if (p.member_epoch == 0) {
    if (!p.subscribed_names || p.subscribed_names->empty()) return "SubscribedTopicNames must be set in first request.";
  } else if (p.member_epoch < kShareLeaveEpoch) {
    return "MemberEpoch is invalid.";
  }
  return std::nullopt;
}

// Kafka: the heartbeat's getOrMaybeCreateShareGroup, the leave's group().
std::string not_found_message(const ShareHeartbeatParams& p) {
  return p.member_epoch == kShareLeaveEpoch ? fmt::format("Group {} not found.", p.group_id)
                                            : fmt::format("Share group {} not found.", p.group_id);
}

std::vector<std::string> sorted_names(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

// Kafka's throwIfShareGroupMemberEpochIsInvalid: a known member's epoch is
// its current one or, a response lost, its previous one.
std::optional<ShareHeartbeatResult> fenced_share_epoch(const ShareGroupMember& m, int32_t epoch) {
  if (epoch > m.member_epoch)
    return share_failed(ErrorCode::kFencedMemberEpoch,
                        fmt::format("The share group member has a greater member epoch ({}) than the one known by the "
                                    "group coordinator ({}). The member must abandon all its partitions and rejoin.",
                                    epoch, m.member_epoch));
  if (epoch < m.member_epoch && epoch != m.previous_member_epoch)
    return share_failed(ErrorCode::kFencedMemberEpoch,
                        fmt::format("The share group member has a smaller member epoch ({}) than the one known by the "
                                    "group coordinator ({}), and it does not match the previous member epoch ({}). The "
                                    "member must abandon all its partitions and rejoin.",
                                    epoch, m.member_epoch, m.previous_member_epoch));
  return std::nullopt;
}

// Why a join or heartbeat is refused: a new member when the group is full,
// an unknown member past its first heartbeat, a known one at a stale epoch.
// `m`: the member, null when the group does not know it.
std::optional<ShareHeartbeatResult> refused_share_member(size_t members, const ShareGroupMember* m, int32_t max_size,
                                                         const ShareHeartbeatParams& p) {
  if (static_cast<int64_t>(members) >= max_size && !m)
    return share_failed(ErrorCode::kGroupMaxSizeReached,
                        fmt::format("The share group has reached its maximum capacity of {} members.", max_size));
  if (!m && p.member_epoch != 0)
    return share_failed(ErrorCode::kUnknownMemberId,
                        fmt::format("Member {} is not a member of group {}.", p.member_id, p.group_id));
  if (m && p.member_epoch != 0) return fenced_share_epoch(*m, p.member_epoch);
  return std::nullopt;
}

// The member's rack, subscription and client as the request sends them;
// true when its subscription changed.
bool update_share_member(ShareGroupMember& m, const ShareHeartbeatParams& p) {
  bool subscription_changed = false;
  if (p.rack_id) m.rack_id = p.rack_id;
  if (p.subscribed_names) {
    auto names = sorted_names(*p.subscribed_names);
    if (names != m.subscribed_names) {
      m.subscribed_names = std::move(names);
      subscription_changed = true;
    }
  }
  m.client_id = p.client_id;
  m.client_host = p.client_host;
  return subscription_changed;
}

}  // namespace

ShareHeartbeatResult GroupCoordinator::share_heartbeat(const ShareHeartbeatParams& p) {
  if (shutting_down_) return share_failed(ErrorCode::kNotCoordinator);
  if (auto why = invalid_share_request(p)) return share_failed(ErrorCode::kInvalidRequest, why);
  GroupPtr g = p.member_epoch == 0 ? get_or_create(p.group_id) : find(p.group_id);
  if (!g) return share_failed(ErrorCode::kGroupIdNotFound, not_found_message(p));
  std::optional<FlushPoints> written;
  std::vector<ShareStateStart> to_initialize;
  int32_t state_epoch = 0;
  ShareHeartbeatResult r;
  {
    std::lock_guard lock(g->mu);
    r = share_heartbeat_locked(*g, p, written, to_initialize, state_epoch);
  }
  if (written && !store_->flush(*written)) return share_failed(ErrorCode::kCoordinatorNotAvailable);
  // Answered at once; the state is initialized behind it (Kafka's timer task).
  if (!to_initialize.empty()) initialize_share_state(p.group_id, state_epoch, std::move(to_initialize));
  return r;
}

ShareHeartbeatResult GroupCoordinator::share_heartbeat_locked(GroupMetadata& g, const ShareHeartbeatParams& p,
                                                              std::optional<FlushPoints>& written,
                                                              std::vector<ShareStateStart>& to_initialize,
                                                              int32_t& state_epoch) {
  if (shutting_down_) return share_failed(ErrorCode::kNotCoordinator);
  if (g.is(GroupState::kDead)) return share_failed(ErrorCode::kCoordinatorNotAvailable);
  if (!g.is_share()) {
    if (!g.is_blank())
      return share_failed(ErrorCode::kGroupIdNotFound, fmt::format("Group {} is not a share group.", p.group_id));
    if (p.member_epoch != 0) return share_failed(ErrorCode::kGroupIdNotFound, not_found_message(p));
    g.share = std::make_unique<ShareGroup>();
  }
  auto& sg = *g.share;
  const auto before = sg.image();
  ShareHeartbeatResult r;
  if (p.member_epoch == kShareLeaveEpoch) {
    if (!sg.get(p.member_id))
      return share_failed(ErrorCode::kUnknownMemberId,
                          fmt::format("Member {} is not a member of group {}.", p.member_id, p.group_id));
    fence_share_member(g, p.member_id);
    coordinator::log().info("group {}: share member {} left (group epoch {})", escaped(p.group_id),
                            escaped(p.member_id), sg.group_epoch);
    r.member_id = p.member_id;
    r.member_epoch = kShareLeaveEpoch;
  } else {
    r = share_join_or_beat(g, p);
    if (r.error == ErrorCode::kNone) {
      to_initialize = share_partitions_to_initialize(sg);
      state_epoch = sg.group_epoch;
    }
  }
  written = persist_share(g, before);
  if (!written) return share_failed(ErrorCode::kCoordinatorNotAvailable);
  return r;
}

std::optional<FlushPoints> GroupCoordinator::persist_share(GroupMetadata& g, const ShareGroupImage& before) {
  auto records = share_records_since(g.group_id(), before, *g.share);
  if (records.empty()) return FlushPoints{};
  return store_->write_share(g.group_id(), records);
}

ShareHeartbeatResult GroupCoordinator::share_join_or_beat(GroupMetadata& g, const ShareHeartbeatParams& p) {
  auto& sg = *g.share;
  auto* m = sg.get(p.member_id);
  if (auto refused = refused_share_member(sg.members.size(), m, config_.share_max_size, p)) return *refused;
  if (!m) {
    m = &sg.members[p.member_id];
    m->member_id = p.member_id;
    coordinator::log().info("group {}: member {} joins the share group", escaped(p.group_id), escaped(p.member_id));
  }
  const auto old = *m;
  refresh_share_target(sg, p, update_share_member(*m, p));
  sg.reconcile(*m);
  schedule_share_session(g, *m);

  ShareHeartbeatResult r;
  r.member_id = m->member_id;
  r.member_epoch = m->member_epoch;
  r.heartbeat_interval_ms = share_heartbeat_interval_ms(p.group_id);
  if (p.member_epoch == 0 || p.subscribed_names || old.assigned != m->assigned) r.assignment = m->assigned;
  return r;
}

void GroupCoordinator::refresh_share_target(ShareGroup& sg, const ShareHeartbeatParams& p, bool bump) {
  if (sg.assignment_epoch >= sg.group_epoch) bump |= sg.initialized_assignment_pending();
  bump |= sg.refresh_subscribed_topics(p.resolve);
  if (bump) ++sg.group_epoch;
  if (sg.assignment_epoch < sg.group_epoch) {
    const auto interval = std::chrono::milliseconds(share_assignment_interval_ms(p.group_id));
    if (!sg.assigned_at || interval.count() == 0 || std::chrono::steady_clock::now() >= *sg.assigned_at + interval)
      sg.compute_target();
  }
}

void GroupCoordinator::fence_share_member(GroupMetadata& g, const std::string& member_id) {
  auto& sg = *g.share;
  sg.remove(member_id);
  sg.forget_unsubscribed_topics();
  if (sg.members.empty()) sg.assignment_epoch = sg.group_epoch;  // Kafka writes the target epoch then
}

std::vector<ShareStateStart> GroupCoordinator::share_partitions_to_initialize(ShareGroup& sg) {
  std::vector<ShareStateStart> out;
  if (!share_state_.load() || sg.subscribed_topics.empty()) return out;
  const int64_t now = wall_clock_ms();
  const bool had_record = sg.state_partitions.has_value();
  auto& meta = had_record ? *sg.state_partitions : sg.state_partitions.emplace();
  for (const auto& [name, t] : sg.subscribed_topics) {
    std::set<int32_t> known;
    const bool topic_known = meta.initialized.contains(t.id) || meta.initializing.contains(t.id);
    if (auto i = meta.initialized.find(t.id); i != meta.initialized.end()) known = i->second.partitions;
    if (auto i = meta.initializing.find(t.id); i != meta.initializing.end()) {
      const bool recent =
          i->second.timestamp_ms >= 0 && now - i->second.timestamp_ms < config_.share_initialize_retry_interval_ms;
      if (recent) known.insert(i->second.partitions.begin(), i->second.partitions.end());
    }
    std::set<int32_t> fresh;
    for (int32_t p = 0; p < t.partitions; ++p)
      if (!known.contains(p)) fresh.insert(p);
    if (fresh.empty()) continue;
    auto& init = meta.initializing[t.id];
    init.name = name;
    init.partitions.insert(fresh.begin(), fresh.end());
    init.timestamp_ms = now;
    meta.deleting.erase(t.id);
    // Kafka: -1 (the leader applies share.auto.offset.reset) for a topic new
    // to the group, 0 for new partitions of a topic it already had.
    for (int32_t p : fresh) out.push_back({{t.id, p}, topic_known ? 0 : -1});
  }
  if (!had_record && out.empty()) sg.state_partitions.reset();  // nothing to record yet
  return out;
}

void GroupCoordinator::initialize_share_state(const std::string& group_id, int32_t state_epoch,
                                              std::vector<ShareStateStart> parts,
                                              std::function<void(std::vector<ShareStateResult>)> then) {
  auto* port = share_state_.load();
  if (!port || parts.empty()) return;
  port->initialize(group_id, state_epoch, std::move(parts),
                   [this, group_id, then = std::move(then)](std::vector<ShareStateResult> results) {
                     on_share_state_initialized(group_id, results);
                     if (then) then(std::move(results));
                   });
}

// Kafka's initializeShareGroupState / uninitializeShareGroupState: the
// partitions that succeeded are initialized; all of them leave `initializing`.
void GroupCoordinator::on_share_state_initialized(const std::string& group_id,
                                                  const std::vector<ShareStateResult>& results) {
  if (shutting_down_) return;
  auto g = find(group_id);
  if (!g) return;
  std::optional<FlushPoints> written;
  {
    std::lock_guard lock(g->mu);
    if (!g->is_share() || g->is(GroupState::kDead)) return;
    auto& sg = *g->share;
    const auto before = sg.image();
    auto& meta = sg.state_partitions ? *sg.state_partitions : sg.state_partitions.emplace();
    bool failed_any = false;
    for (const auto& r : results) {
      const auto& id = r.partition.topic_id;
      std::string name;
      if (auto i = meta.initializing.find(id); i != meta.initializing.end()) {
        name = i->second.name;
        i->second.partitions.erase(r.partition.partition);
        if (i->second.partitions.empty()) meta.initializing.erase(i);
      }
      if (r.error != ErrorCode::kNone) {
        failed_any = true;
        continue;
      }
      if (name.empty())
        if (auto t = logs_.topic_by_id(id)) name = t->name;
      auto& done = meta.initialized[id];
      if (done.name.empty()) done.name = name.empty() ? "UNKNOWN" : name;
      done.partitions.insert(r.partition.partition);
    }
    if (failed_any)
      coordinator::log().warn("group {}: share-partition state initialization failed for some partitions",
                              escaped(group_id));
    written = persist_share(*g, before);
  }
  if (written) store_->flush(*written);
}

void GroupCoordinator::schedule_share_session(GroupMetadata& g, ShareGroupMember& m) {
  const int32_t session_ms = share_session_timeout_ms(g.group_id());
  member_session::arm(timers_, m, session_ms, [this, weak = g.weak_from_this(), id = m.member_id](uint64_t round) {
    on_share_session_check(weak, id, round);
  });
}

void GroupCoordinator::on_share_session_check(const std::weak_ptr<GroupMetadata>& weak, const std::string& member_id,
                                              uint64_t round) {
  auto g = weak.lock();
  if (!g) return;
  std::optional<FlushPoints> written;
  {
    std::lock_guard lock(g->mu);
    auto* m = g->share ? g->share->get(member_id) : nullptr;
    if (!m || !member_session::expired(timers_, *m, round, [this, weak, member_id](uint64_t next) {
          on_share_session_check(weak, member_id, next);
        }))
      return;
    const auto before = g->share->image();
    fence_share_member(*g, member_id);
    written = persist_share(*g, before);
    coordinator::log().info("group {}: share member {} session expired (group epoch {})", escaped(g->group_id()),
                            escaped(member_id), g->share->group_epoch);
  }
  if (written) store_->flush(*written);
}

void GroupCoordinator::load_share_group(GroupMetadata& g, LoadedShareGroup& loaded) {
  auto sg = std::make_unique<ShareGroup>();
  sg->group_epoch = loaded.epoch;
  sg->assignment_epoch = loaded.assignment_epoch;
  sg->target = std::move(loaded.targets);
  sg->members = std::move(loaded.members);
  sg->state_partitions = std::move(loaded.state_partitions);
  for (auto& [id, m] : sg->members) m.member_id = id;
  sg->refresh_subscribed_topics(topics_);
  sg->metadata_hash = loaded.metadata_hash;  // the first heartbeat bumps only if a topic changed
  g.share = std::move(sg);
  for (auto& [id, m] : g.share->members) schedule_share_session(g, m);
}

ShareGroupDescription GroupCoordinator::describe_share_group(const std::string& group_id) {
  ShareGroupDescription d;
  d.group_id = group_id;
  if (shutting_down_) return d.error = ErrorCode::kNotCoordinator, d;
  auto g = find(group_id);
  if (!g) return d.error = ErrorCode::kGroupIdNotFound, d.message = "Group " + group_id + " not found.", d;
  std::lock_guard lock(g->mu);
  if (g->is(GroupState::kDead) || !g->is_share()) {
    d.error = ErrorCode::kGroupIdNotFound;
    d.message = g->is_share() || g->is_blank() ? "Group " + group_id + " not found."
                                               : "Group " + group_id + " is not a share group.";
    return d;
  }
  const auto& sg = *g->share;
  d.state = sg.state();
  d.group_epoch = sg.group_epoch;
  d.assignment_epoch = sg.assignment_epoch;
  for (const auto& [id, m] : sg.members) {
    d.members.push_back({id, m.rack_id, m.member_epoch, m.client_id, m.client_host, m.subscribed_names, m.assigned});
    for (const auto& [t, ps] : m.assigned)
      if (!d.topic_names.contains(t))
        if (auto info = logs_.topic_by_id(t)) d.topic_names[t] = info->name;
  }
  return d;
}

}  // namespace skiff::group
