// GroupCoordinator: KIP-1071's StreamsGroupHeartbeat (Kafka 4.4's
// GroupCoordinatorService request checks and GroupMetadataManager's
// streamsGroupHeartbeat / streamsGroupLeave): find or create the streams
// group, the member joins or heartbeats; the topology is initialized by the
// first member and configured against the broker's topics (internal topics
// to create, statuses); the group epoch moves when a member's metadata, the
// topics' metadata, the validated topology or the assignment configs
// change; a new target comes from the sticky task assignor (after the
// initial rebalance delay); the member reconciles towards its target; the
// response carries its tasks, statuses and the interactive-query endpoints.
//
// Nothing is changed before every check passed: the topology and the
// member's tasks are checked against what the heartbeat would configure, so
// a refused heartbeat writes nothing (Kafka discards the operation's records).
#include <fmt/format.h>

#include <algorithm>

#include "common/log_escape.h"
#include "coordinator/group/group_coordinator.h"
#include "coordinator/group/streams/streams_conversions.h"
#include "coordinator/group/streams_heartbeat_parts.h"
#include "coordinator/runtime/coordinator_log.h"

namespace skiff::group {
namespace {

using Req = protocol::StreamsGroupHeartbeatRequest;
using Resp = protocol::StreamsGroupHeartbeatResponse;
using streams::StreamsStatus;
using streams_hb::failed;
using streams_hb::status;

// What the heartbeat would make of the group's topology, computed before
// anything changes.
struct TopologyPlan {
  std::optional<streams::Topology> initial;  // the request's topology, when it initializes the group's
  std::map<std::string, consumer::TopicMetadata> topics;
  int64_t hash = 0;
  std::optional<streams::ConfiguredTopology> configured;
};

// Kafka's throwIfStreamsGroupIsFull / getMemberOrThrow / the epoch check.
std::optional<StreamsHeartbeatResult> refused_member(StreamsGroup& sg, const Req& req, int32_t max_size) {
  const bool joining = req.member_epoch == 0;
  StreamsGroupMember* m = sg.get(req.member_id);
  if (joining && sg.members.size() >= static_cast<size_t>(max_size))
    return failed(ErrorCode::kGroupMaxSizeReached,
                  fmt::format("The streams group has reached its maximum capacity of {} members.", max_size));
  if (!m && !joining)
    return failed(ErrorCode::kUnknownMemberId,
                  fmt::format("Member {} is not a member of group {}.", req.member_id, req.group_id));
  if (m && !joining)
    if (auto fenced = streams_hb::fenced_epoch(*m, req)) return failed(ErrorCode::kFencedMemberEpoch, *fenced);
  return std::nullopt;
}

// The topology this heartbeat leaves the group with and its configuration
// against the broker's topics; a refusal when the request cannot be served.
std::optional<StreamsHeartbeatResult> plan_topology(const StreamsGroup& sg, const StreamsHeartbeatParams& p,
                                                    TopologyPlan& plan) {
  const Req& req = *p.request;
  if (req.topology) {
    auto t = streams::topology_from_heartbeat(*req.topology);
    if (!sg.topology)
      plan.initial = std::move(t);
    else if (sg.topology->epoch <= t.epoch && *sg.topology != t)
      return failed(ErrorCode::kInvalidRequest, "Topology updates are not supported yet.");
  } else if (!sg.topology) {
    return failed(ErrorCode::kUnknownServerError, "The topology is null and the group topology is also null.");
  }
  const streams::Topology& topology = plan.initial ? *plan.initial : *sg.topology;
  for (const auto& name : streams::required_topics(topology))
    if (auto t = p.resolve ? p.resolve(name) : std::nullopt) plan.topics[name] = *t;
  plan.hash = topics_metadata_hash(plan.topics);
  plan.configured = sg.configured;
  if (plan.initial || !sg.configured || plan.hash != sg.metadata_hash) {
    auto res = streams::configure_topics(topology, [&](const std::string& name) -> std::optional<int32_t> {
      auto it = plan.topics.find(name);
      if (it == plan.topics.end()) return std::nullopt;
      return it->second.partitions;
    });
    if (res.error) return failed(res.error->code, res.error->message);
    plan.configured = std::move(res.configured);
  }
  if (plan.configured->ready())
    if (auto bad = streams_hb::invalid_tasks(*plan.configured->subtopologies, req))
      return failed(ErrorCode::kInvalidRequest, *bad);
  return std::nullopt;
}

}  // namespace

StreamsHeartbeatResult GroupCoordinator::streams_heartbeat(const StreamsHeartbeatParams& p) {
  const Req& req = *p.request;
  if (shutting_down_) return failed(ErrorCode::kNotCoordinator);
  if (auto bad = streams_hb::invalid_request(req)) return failed(bad->first, bad->second);
  if (req.instance_id) return failed(ErrorCode::kUnknownServerError, "Static members are not supported yet.");
  const bool joining = req.member_epoch == 0;
  GroupPtr g = joining ? get_or_create(req.group_id) : find(req.group_id);
  if (!g)
    return failed(ErrorCode::kGroupIdNotFound, req.member_epoch < 0
                                                   ? fmt::format("Group {} not found.", req.group_id)
                                                   : fmt::format("Streams group {} not found.", req.group_id));
  std::optional<FlushPoints> written;
  StreamsHeartbeatResult r;
  {
    std::lock_guard lock(g->mu);
    r = streams_heartbeat_locked(*g, p, written);
  }
  if (written && !store_->flush(*written)) return failed(ErrorCode::kCoordinatorNotAvailable);
  return r;
}

StreamsHeartbeatResult GroupCoordinator::streams_heartbeat_locked(GroupMetadata& g, const StreamsHeartbeatParams& p,
                                                                  std::optional<FlushPoints>& written) {
  const Req& req = *p.request;
  if (shutting_down_) return failed(ErrorCode::kNotCoordinator);
  if (g.is(GroupState::kDead)) return failed(ErrorCode::kCoordinatorNotAvailable);
  StreamsGroupImage before;  // empty: a group created or converted now writes all of itself
  if (!g.is_streams()) {
    // Kafka converts an empty classic group (maybeDeleteEmptyClassicGroup).
    const bool convertible = !g.is_consumer() && !g.is_share() && g.is(GroupState::kEmpty) && g.members().empty();
    if (req.member_epoch != 0 || !convertible)
      return failed(ErrorCode::kGroupIdNotFound, fmt::format("Group {} is not a streams group.", req.group_id));
    g.streams = std::make_unique<StreamsGroup>();
    g.protocol_type.reset();
  } else {
    before = g.streams->image();
  }
  auto r = req.member_epoch < 0 ? streams_leave(g, req) : streams_join_or_beat(g, p);
  written = persist_streams(g, before);
  if (!written) return failed(ErrorCode::kCoordinatorNotAvailable);
  return r;
}

std::optional<FlushPoints> GroupCoordinator::persist_streams(GroupMetadata& g, const StreamsGroupImage& before) {
  auto records = streams_records_since(g.group_id(), before, *g.streams);
  if (records.empty()) return FlushPoints{};
  return store_->write_streams(g.group_id(), records);
}

StreamsHeartbeatResult GroupCoordinator::streams_join_or_beat(GroupMetadata& g, const StreamsHeartbeatParams& p) {
  auto& sg = *g.streams;
  if (auto refused = refused_member(sg, *p.request, config_.streams_max_size)) return *refused;
  TopologyPlan plan;
  if (auto refused = plan_topology(sg, p, plan)) return *refused;
  return streams_apply_heartbeat(g, p, std::move(plan.initial), std::move(plan.topics), plan.hash,
                                 std::move(*plan.configured));
}

StreamsHeartbeatResult GroupCoordinator::streams_apply_heartbeat(GroupMetadata& g, const StreamsHeartbeatParams& p,
                                                                 std::optional<streams::Topology> initial,
                                                                 std::map<std::string, consumer::TopicMetadata> topics,
                                                                 int64_t hash, streams::ConfiguredTopology configured) {
  const Req& req = *p.request;
  auto& sg = *g.streams;
  const bool was_empty = sg.empty();
  StreamsGroupMember* m = sg.get(req.member_id);
  const bool existed = m != nullptr;
  if (!m) {
    m = &sg.members[req.member_id];
    m->member_id = req.member_id;
    coordinator::log().info("group {}: member {} joins the streams group", escaped(g.group_id()),
                            escaped(req.member_id));
  }
  const StreamsGroupMember old = *m;
  streams_hb::update_member(*m, req, p.client_id, p.client_host);
  if (m->assignment.process_id != m->process_id) {
    auto next = m->assignment;
    next.process_id = m->process_id;
    sg.set_assignment(*m, next);
  }
  bool bump = !existed || !old.same_metadata(*m);
  if (initial) {
    coordinator::log().info("group {}: member {} initialized the topology with epoch {}", escaped(g.group_id()),
                            escaped(req.member_id), initial->epoch);
    sg.topology = std::move(initial);
  }
  std::vector<Resp::Status> statuses;
  if (m->topology_epoch < sg.topology->epoch)
    statuses.push_back(status(StreamsStatus::kStaleTopology,
                              fmt::format("The member's topology epoch {} is behind the group's topology epoch {}.",
                                          m->topology_epoch, sg.topology->epoch)));
  sg.topics = std::move(topics);
  sg.configured = std::move(configured);
  streams_bump_epoch(g, hash, bump);
  if (was_empty) maybe_delay_streams_assignment(g);
  return streams_reconcile_and_answer(g, p, *m, old, std::move(statuses));
}
}  // namespace skiff::group
