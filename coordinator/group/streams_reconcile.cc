// GroupCoordinator: the second half of a streams group's heartbeat (the
// group epoch, the initial rebalance delay, the target assignment, the
// member's reconciliation and the response) and what changes a streams
// group without a request: leaving, session expiry, a revocation past the
// rebalance timeout, the end of the initial delay (Kafka 4.4's
// GroupMetadataManager: streamsGroupFenceMember, scheduleStreamsGroup*,
// computeDelayedTargetAssignment). Timers run on the TimerQueue thread and
// take the group's mutex; a timer of an older round does nothing.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/log_escape.h"
#include "coordinator/group/group_coordinator.h"
#include "coordinator/group/member_session.h"
#include "coordinator/group/streams/sticky_task_assignor.h"
#include "coordinator/group/streams/streams_conversions.h"
#include "coordinator/group/streams_heartbeat_parts.h"
#include "coordinator/runtime/coordinator_log.h"

namespace skiff::group {
namespace {

using Resp = protocol::StreamsGroupHeartbeatResponse;
using streams::StreamsStatus;
using streams_hb::failed;
using streams_hb::status;

const streams::TasksTuple kNoTasks;
constexpr std::string_view kRackTags = "rack.aware.assignment.tags";

// Kafka 4.4: with rack-aware assignment tags in the group's assignment
// configs, a member (v1+) without one of those client tags hears which.
std::optional<Resp::Status> missing_client_tags(const std::map<std::string, std::string>& configs,
                                                const StreamsGroupMember& m, int16_t version) {
  auto tags = configs.find(std::string(kRackTags));
  if (version < 1 || tags == configs.end()) return std::nullopt;
  std::vector<std::string> missing;
  for (auto& tag : group_config_list(tags->second))
    if (!m.client_tags.count(tag)) missing.push_back(std::move(tag));
  if (missing.empty()) return std::nullopt;
  return status(StreamsStatus::kMissingClientTags,
                fmt::format("Missing required client tags for rack-aware standby assignment: [{}]. Configure them "
                            "via 'client.tag.<tagKey>' in your Streams config.",
                            fmt::join(missing, ", ")));
}

// The response of a served heartbeat: the member's epoch, its tasks when
// they changed (or it joined), the endpoints when its endpoint epoch is
// behind, the description request (KIP-1331), the statuses and the internal
// topics to create.
void fill_response(StreamsGroup& sg, const StreamsGroupMember& m, const StreamsGroupMember& old,
                   const StreamsHeartbeatParams& p, std::vector<Resp::Status> statuses, StreamsHeartbeatResult& r) {
  const auto& req = *p.request;
  auto& resp = r.response;
  resp.member_id = m.member_id;
  resp.member_epoch = m.assignment.member_epoch;
  if (req.member_epoch == 0 || old.assignment.assigned != m.assignment.assigned) {
    resp.active_tasks = streams_hb::task_ids(streams::task_set(m.assignment.assigned.active));
    resp.standby_tasks = streams_hb::task_ids(m.assignment.assigned.standby);
    resp.warmup_tasks = streams_hb::task_ids(m.assignment.assigned.warmup);
    if (m.user_endpoint) ++sg.endpoint_info_epoch;
  }
  if (sg.endpoint_info_epoch != req.endpoint_information_epoch)
    resp.partitions_by_user_endpoint = streams_hb::endpoints(sg, m.member_id);
  resp.endpoint_information_epoch = sg.endpoint_info_epoch;
  // KIP-1331: the broker keeps the description (API 93); ask for it while
  // it is missing or older than the group's topology.
  resp.topology_description_required = p.version >= 1 && sg.stored_description_epoch < sg.topology->epoch;
  if (const auto& error = sg.configured->error) {
    statuses.push_back(status(error->status, error->message));
    for (const auto& [name, t] : sg.configured->internal_topics_to_create) r.to_create.push_back(t);
  }
  if (sg.shutdown_requested_by)
    statuses.push_back(status(StreamsStatus::kShutdownApplication,
                              fmt::format("Streams group member {} encountered a fatal error and requested a shutdown "
                                          "for the entire application.",
                                          *sg.shutdown_requested_by)));
  resp.status = std::move(statuses);
}

}  // namespace

// Kafka's streamsGroupAssignmentConfigs: what the assignor is given (a
// change bumps the group epoch).
std::map<std::string, std::string> GroupCoordinator::streams_assignment_configs(const std::string& group_id) const {
  std::map<std::string, std::string> configs{
      {"num.standby.replicas", std::to_string(streams_num_standby_replicas(group_id))}};
  if (auto tags = streams_rack_aware_assignment_tags(group_id); !tags.empty())
    configs.emplace(kRackTags, fmt::format("{}", fmt::join(tags, ",")));
  return configs;
}

void GroupCoordinator::streams_bump_epoch(GroupMetadata& g, int64_t hash, bool bump) {
  auto& sg = *g.streams;
  const int32_t validated = sg.configured->ready() ? sg.topology->epoch : -1;
  const auto configs = streams_assignment_configs(g.group_id());
  bump |= hash != sg.metadata_hash || validated != sg.validated_topology_epoch || configs != sg.assignment_configs;
  if (!bump) return;
  sg.group_epoch = sg.group_epoch == 0 ? 2 : sg.group_epoch + 1;
  sg.metadata_hash = hash;
  sg.validated_topology_epoch = validated;
  sg.assignment_configs = configs;
  coordinator::log().info("group {}: streams group epoch {} (validated topology epoch {})", escaped(g.group_id()),
                          sg.group_epoch, validated);
}

void GroupCoordinator::maybe_delay_streams_assignment(GroupMetadata& g) {
  auto& sg = *g.streams;
  const int32_t delay_ms = streams_initial_rebalance_delay_ms(g.group_id());
  if (delay_ms <= 0 || sg.delay_until) return;
  sg.delay_until = coordinator::TimerQueue::Clock::now() + std::chrono::milliseconds(delay_ms);
  timers_.schedule(*sg.delay_until, [this, weak = g.weak_from_this()] { on_streams_initial_delay(weak); });
}

// Kafka's computeDelayedTargetAssignment.
void GroupCoordinator::on_streams_initial_delay(const std::weak_ptr<GroupMetadata>& weak) {
  auto g = weak.lock();
  if (!g) return;
  std::optional<FlushPoints> written;
  {
    std::lock_guard lock(g->mu);
    if (!g->is_streams()) return;
    auto& sg = *g->streams;
    const auto before = sg.image();
    sg.delay_until.reset();
    if (sg.empty() || sg.group_epoch <= sg.assignment_epoch || !sg.configured) return;
    if (!compute_streams_target(*g)) return;
    written = persist_streams(*g, before);
  }
  if (written) store_->flush(*written);
}

bool GroupCoordinator::compute_streams_target(GroupMetadata& g) {
  auto& sg = *g.streams;
  try {
    sg.compute_target(sg.group_epoch, streams_num_standby_replicas(g.group_id()));
    coordinator::log().info("group {}: computed a new target assignment for epoch {} with 'sticky' assignor",
                            escaped(g.group_id()), sg.group_epoch);
    return true;
  } catch (const streams::TaskAssignorError& e) {
    coordinator::log().error("group {}: failed to compute a new target assignment for epoch {}: {}",
                             escaped(g.group_id()), sg.group_epoch, e.what());
    return false;
  }
}

StreamsHeartbeatResult GroupCoordinator::streams_reconcile_and_answer(GroupMetadata& g, const StreamsHeartbeatParams& p,
                                                                      StreamsGroupMember& m,
                                                                      const StreamsGroupMember& old,
                                                                      std::vector<Resp::Status> statuses) {
  const auto& req = *p.request;
  auto& sg = *g.streams;
  int32_t target_epoch = sg.assignment_epoch;
  const streams::TasksTuple* target = &sg.target_of(m.member_id);
  if (sg.group_epoch > sg.assignment_epoch) {
    if (sg.delay_until) {
      target_epoch = std::max(1, sg.assignment_epoch);
      target = &kNoTasks;
      statuses.push_back(status(StreamsStatus::kAssignmentDelayed,
                                "Assignment delayed due to the configured initial rebalance delay."));
    } else if (compute_streams_target(g)) {
      target_epoch = sg.assignment_epoch;
      target = &sg.target_of(m.member_id);
    } else {
      return failed(ErrorCode::kUnknownServerError,
                    fmt::format("Failed to compute a new target assignment for epoch {}.", sg.group_epoch));
    }
  }
  if (!m.reconciled_to(target_epoch)) {
    const auto owned = streams::owned_from_heartbeat(req);
    auto res = streams::reconcile(m.assignment, {target_epoch, target, owned ? &*owned : nullptr, &sg.owners});
    if (res.fenced) return failed(ErrorCode::kFencedMemberEpoch, *res.fenced);
    if (res.member != m.assignment) {
      sg.set_assignment(m, res.member);
      if (m.assignment.state == streams::MemberState::kUnrevokedTasks)
        schedule_streams_revocation(g, m);
      else
        ++m.revocation_round;
    }
  }
  schedule_streams_session(g, m);
  if (req.shutdown_application) sg.shutdown_requested_by = m.member_id;
  StreamsHeartbeatResult r;
  r.response.heartbeat_interval_ms = streams_heartbeat_interval_ms(g.group_id());
  // When to report task offsets, and how far behind a warm-up may be to
  // count as caught up (v0 carries the lag as an int32).
  r.response.task_offset_interval_ms = streams_task_offset_interval_ms(g.group_id());
  const int64_t lag = streams_acceptable_recovery_lag(g.group_id());
  if (p.version >= 1)
    r.response.acceptable_recovery_lag = lag;
  else
    r.response.acceptable_recovery_lag_legacy = static_cast<int32_t>(std::min<int64_t>(lag, INT32_MAX));
  fill_response(sg, m, old, p, std::move(statuses), r);
  // sg.assignment_configs: this heartbeat's, set by streams_bump_epoch.
  if (auto tags = missing_client_tags(sg.assignment_configs, m, p.version))
    r.response.status.value().push_back(std::move(*tags));
  return r;
}

StreamsHeartbeatResult GroupCoordinator::streams_leave(GroupMetadata& g,
                                                       const protocol::StreamsGroupHeartbeatRequest& req) {
  auto& sg = *g.streams;
  if (req.member_epoch == -2)
    return failed(ErrorCode::kUnknownServerError, "Static members are not supported in streams groups.");
  if (!sg.get(req.member_id))
    return failed(ErrorCode::kUnknownMemberId,
                  fmt::format("Member {} is not a member of group {}.", req.member_id, req.group_id));
  if (req.shutdown_application) sg.shutdown_requested_by = req.member_id;
  fence_streams_member(g, req.member_id, "left the streams group");
  StreamsHeartbeatResult r;
  r.response.member_id = req.member_id;
  r.response.member_epoch = req.member_epoch;
  return r;
}

void GroupCoordinator::fence_streams_member(GroupMetadata& g, const std::string& member_id, const char* why) {
  auto& sg = *g.streams;
  sg.remove(member_id);
  ++sg.group_epoch;
  if (sg.empty()) sg.shutdown_requested_by.reset();
  coordinator::log().info("group {}: streams member {} {} (group epoch {})", escaped(g.group_id()), escaped(member_id),
                          why, sg.group_epoch);
}

void GroupCoordinator::schedule_streams_session(GroupMetadata& g, StreamsGroupMember& m) {
  const int32_t session_ms = streams_session_timeout_ms(g.group_id());
  member_session::arm(timers_, m, session_ms, [this, weak = g.weak_from_this(), id = m.member_id](uint64_t round) {
    on_streams_session_check(weak, id, round);
  });
}

void GroupCoordinator::on_streams_session_check(const std::weak_ptr<GroupMetadata>& weak, const std::string& member_id,
                                                uint64_t round) {
  auto g = weak.lock();
  if (!g) return;
  std::optional<FlushPoints> written;
  {
    std::lock_guard lock(g->mu);
    auto* m = g->streams ? g->streams->get(member_id) : nullptr;
    if (!m || !member_session::expired(timers_, *m, round, [this, weak, member_id](uint64_t next) {
          on_streams_session_check(weak, member_id, next);
        }))
      return;
    const auto before = g->streams->image();
    fence_streams_member(*g, member_id, "fenced: the member session expired");
    written = persist_streams(*g, before);
  }
  if (written) store_->flush(*written);
}

void GroupCoordinator::schedule_streams_revocation(GroupMetadata& g, StreamsGroupMember& m) {
  const auto at =
      coordinator::TimerQueue::Clock::now() + std::chrono::milliseconds(std::max(0, m.rebalance_timeout_ms));
  timers_.schedule(at, [this, weak = g.weak_from_this(), id = m.member_id, round = ++m.revocation_round,
                        epoch = m.assignment.member_epoch] { on_streams_revocation_timeout(weak, id, round, epoch); });
}

void GroupCoordinator::on_streams_revocation_timeout(const std::weak_ptr<GroupMetadata>& weak,
                                                     const std::string& member_id, uint64_t round, int32_t epoch) {
  auto g = weak.lock();
  if (!g) return;
  std::optional<FlushPoints> written;
  {
    std::lock_guard lock(g->mu);
    auto* m = g->streams ? g->streams->get(member_id) : nullptr;
    if (!m || m->revocation_round != round || m->assignment.member_epoch != epoch ||
        m->assignment.state != streams::MemberState::kUnrevokedTasks)
      return;
    const auto before = g->streams->image();
    fence_streams_member(*g, member_id, "fenced: it failed to revoke its tasks within the rebalance timeout");
    written = persist_streams(*g, before);
  }
  if (written) store_->flush(*written);
}

void GroupCoordinator::load_streams_group(GroupMetadata& g, LoadedStreamsGroup& loaded) {
  auto sg = std::make_unique<StreamsGroup>();
  sg->group_epoch = loaded.metadata.epoch;
  sg->metadata_hash = loaded.metadata.metadata_hash;
  sg->validated_topology_epoch = loaded.metadata.validated_topology_epoch;
  sg->assignment_configs = loaded.metadata.assignment_configs;
  // The description itself is kept in memory only: a restarted broker asks for it again.
  sg->topology = std::move(loaded.topology);
  sg->assignment_epoch = loaded.assignment_epoch;
  sg->targets = std::move(loaded.targets);
  for (auto& [id, m] : loaded.members) {
    m.member_id = id;
    m.assignment.process_id = m.process_id;
    sg->owners.update({}, m.assignment);
    sg->members.emplace(id, std::move(m));
  }
  g.streams = std::move(sg);
  for (auto& [id, m] : g.streams->members) schedule_streams_session(g, m);
}

}  // namespace skiff::group
