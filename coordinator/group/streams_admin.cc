// GroupCoordinator: StreamsGroupDescribe (89) and
// StreamsGroupTopologyDescriptionUpdate (93, KIP-1331) for streams groups
// (Kafka 4.4's StreamsGroup.asDescribedGroup and the topology-description
// push, with Skiff itself as the store Kafka delegates to a plugin).
#include <fmt/format.h>

#include "common/log_escape.h"
#include "coordinator/group/group_coordinator.h"
#include "coordinator/runtime/coordinator_log.h"
#include "protocol/byte_reader.h"
#include "protocol/byte_writer.h"

namespace skiff::group {
namespace {

using Described = protocol::StreamsGroupDescribeResponse;

// KIP-1331's TopologyDescriptionStatus.
constexpr int8_t kDescriptionNotRequested = 0;
constexpr int8_t kDescriptionNotStored = 1;
constexpr int8_t kDescriptionAvailable = 3;

std::vector<Described::TaskIds> described_tasks(const streams::TaskSet& tasks) {
  std::vector<Described::TaskIds> out;
  for (const auto& [sub, parts] : tasks) {
    auto& t = out.emplace_back();
    t.subtopology_id = sub;
    t.partitions.assign(parts.begin(), parts.end());
  }
  return out;
}

Described::Assignment described(const streams::TaskSet& active, const streams::TaskSet& standby,
                                const streams::TaskSet& warmup) {
  Described::Assignment a;
  a.active_tasks = described_tasks(active);
  a.standby_tasks = described_tasks(standby);
  a.warmup_tasks = described_tasks(warmup);
  return a;
}

std::vector<Described::TaskOffset> described_offsets(const StreamsTaskOffsets& offsets) {
  std::vector<Described::TaskOffset> out;
  for (const auto& [sub, parts] : offsets)
    for (const auto& [p, o] : parts) out.push_back({sub, p, o, {}});
  return out;
}

std::vector<Described::TopicInfo> described_topics(const std::vector<streams::TopicInfo>& topics) {
  std::vector<Described::TopicInfo> out;
  for (const auto& t : topics) {
    auto& i = out.emplace_back();
    i.name = t.name;
    i.partitions = t.partitions;
    i.replication_factor = t.replication_factor;
    for (const auto& [k, v] : t.configs) i.topic_configs.push_back({k, v, {}});
  }
  return out;
}

Described::Topology described_topology(const streams::Topology& t) {
  Described::Topology out;
  out.epoch = t.epoch;
  auto& subs = out.subtopologies.emplace();
  for (const auto& [id, s] : t.subtopologies) {
    auto& d = subs.emplace_back();
    d.subtopology_id = id;
    d.source_topics = s.source_topics;
    d.repartition_sink_topics = s.repartition_sink_topics;
    d.state_changelog_topics = described_topics(s.state_changelog_topics);
    d.repartition_source_topics = described_topics(s.repartition_source_topics);
  }
  return out;
}

Described::Member described_member(const StreamsGroup& sg, const StreamsGroupMember& m) {
  Described::Member d;
  d.member_id = m.member_id;
  d.member_epoch = m.assignment.member_epoch;
  d.instance_id = m.instance_id;
  d.rack_id = m.rack_id;
  d.client_id = m.client_id;
  d.client_host = m.client_host;
  d.topology_epoch = m.topology_epoch;
  d.process_id = m.process_id;
  if (m.user_endpoint) d.user_endpoint = Described::Endpoint{m.user_endpoint->host, m.user_endpoint->port, {}};
  for (const auto& [k, v] : m.client_tags) d.client_tags.push_back({k, v, {}});
  d.task_offsets = described_offsets(m.task_offsets);
  d.task_end_offsets = described_offsets(m.task_end_offsets);
  const auto& a = m.assignment.assigned;
  d.assignment = described(streams::task_set(a.active), a.standby, a.warmup);
  const auto& t = sg.target_of(m.member_id);
  d.target_assignment = described(t.active, t.standby, t.warmup);
  return d;
}

// The pushed description as StreamsGroupDescribe carries it: the same
// struct on the wire, so one is read from the other's bytes.
Described::TopologyDescription described_description(
    const protocol::StreamsGroupTopologyDescriptionUpdateRequest::TopologyDescription& in) {
  protocol::ByteWriter w(in.encoded_size(0));
  in.encode(w, 0);
  const auto bytes = w.take_bytes();
  protocol::ByteReader r(bytes);
  Described::TopologyDescription out;
  out.decode(r, 1);
  return out;
}

}  // namespace

StreamsGroupDescribed GroupCoordinator::describe_streams_group(const std::string& group_id, bool include_description) {
  StreamsGroupDescribed d;
  d.group_id = group_id;
  auto fail = [&](ErrorCode e, std::optional<std::string> m) {
    d.error_code = static_cast<int16_t>(e);
    d.error_message = std::move(m);
    return d;
  };
  if (shutting_down_) return fail(ErrorCode::kNotCoordinator, std::nullopt);
  auto g = find(group_id);
  if (!g) return fail(ErrorCode::kGroupIdNotFound, fmt::format("Group {} not found.", group_id));
  std::lock_guard lock(g->mu);
  if (g->is(GroupState::kDead) || !g->is_streams())
    return fail(ErrorCode::kGroupIdNotFound, g->is_blank() || g->is(GroupState::kDead)
                                                 ? fmt::format("Group {} not found.", group_id)
                                                 : fmt::format("Group {} is not a streams group.", group_id));
  const auto& sg = *g->streams;
  d.group_state = sg.state();
  d.group_epoch = sg.group_epoch;
  d.assignment_epoch = sg.assignment_epoch;
  if (sg.topology) d.topology = described_topology(*sg.topology);
  for (const auto& [id, m] : sg.members) d.members.push_back(described_member(sg, m));
  d.assignor_name = "sticky";
  d.topology_description_status = kDescriptionNotRequested;
  if (include_description) {
    d.topology_description_status = sg.description ? kDescriptionAvailable : kDescriptionNotStored;
    if (sg.description) d.topology_description = described_description(*sg.description);
  }
  return d;
}

StreamsTopologyUpdateResult GroupCoordinator::update_streams_topology_description(
    const protocol::StreamsGroupTopologyDescriptionUpdateRequest& req) {
  StreamsTopologyUpdateResult r;
  auto fail = [&](ErrorCode e, std::string m) {
    r.error = e;
    r.message = std::move(m);
    return r;
  };
  if (shutting_down_) return fail(ErrorCode::kNotCoordinator, "The coordinator is shutting down.");
  auto g = find(req.group_id);
  if (!g) return fail(ErrorCode::kGroupIdNotFound, fmt::format("Group {} not found.", req.group_id));
  std::lock_guard lock(g->mu);
  if (g->is(GroupState::kDead) || !g->is_streams())
    return fail(ErrorCode::kGroupIdNotFound, fmt::format("Group {} is not a streams group.", req.group_id));
  auto& sg = *g->streams;
  if (!sg.get(req.member_id))
    return fail(ErrorCode::kUnknownMemberId,
                fmt::format("Member {} is not a member of group {}.", req.member_id, req.group_id));
  const int32_t current = sg.topology ? sg.topology->epoch : -1;
  if (req.topology_epoch > current)
    return fail(
        ErrorCode::kStreamsInvalidTopologyEpoch,
        fmt::format("Topology epoch {} is ahead of the group's topology epoch {}.", req.topology_epoch, current));
  if (req.topology_epoch < current)
    return fail(ErrorCode::kStreamsTopologyFenced,
                fmt::format("Topology epoch {} is behind the group's topology epoch {}.", req.topology_epoch, current));
  sg.description = req.topology_description;
  sg.stored_description_epoch = req.topology_epoch;
  coordinator::log().info("group {}: topology description of epoch {} stored ({} subtopologies)", escaped(req.group_id),
                          req.topology_epoch, req.topology_description.subtopologies.size());
  return r;
}

}  // namespace skiff::group
