#include "coordinator/group/streams_heartbeat_parts.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace skiff::group::streams_hb {
namespace {

// Java's String.trim().isEmpty(): nothing above ' '.
bool blank(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) <= ' '; });
}

template <class V>
bool non_empty(const std::optional<V>& v) {
  return v && !v->empty();
}

std::optional<std::pair<ErrorCode, std::string>> invalid(std::string m) {
  return std::make_pair(ErrorCode::kInvalidRequest, std::move(m));
}

std::optional<std::pair<ErrorCode, std::string>> invalid_join(const Req& r) {
  if (r.rebalance_timeout_ms == -1) return invalid("RebalanceTimeoutMs must be provided in first request.");
  if (non_empty(r.active_tasks)) return invalid("ActiveTasks must be empty when (re-)joining.");
  if (non_empty(r.standby_tasks)) return invalid("StandbyTasks must be empty when (re-)joining.");
  if (non_empty(r.warmup_tasks)) return invalid("WarmupTasks must be empty when (re-)joining.");
  if (!r.topology) return invalid("Topology must be non-null when (re-)joining.");
  for (const auto& sub : r.topology->subtopologies)
    for (const auto& t : sub.state_changelog_topics)
      if (t.partitions != 0)
        return std::make_pair(
            ErrorCode::kStreamsInvalidTopology,
            fmt::format("Changelog topic {} must have an undefined partition count, but it is set to {}.", t.name,
                        t.partitions));
  return std::nullopt;
}

// Kafka's areOwnedTasksContainedInAssignedTasks: nothing sent proves nothing.
template <class Assigned>
bool contained(const std::optional<std::vector<Req::TaskIds>>& owned, const Assigned& assigned) {
  if (!owned) return false;
  for (const auto& t : *owned) {
    auto it = assigned.find(t.subtopology_id);
    if (it == assigned.end()) return false;
    for (int32_t p : t.partitions)
      if (!it->second.contains(p)) return false;
  }
  return true;
}

std::optional<std::string> invalid_task_list(const std::map<std::string, streams::ConfiguredSubtopology>& subs,
                                             const std::optional<std::vector<Req::TaskIds>>& tasks) {
  if (!tasks) return std::nullopt;
  for (const auto& t : *tasks) {
    auto it = subs.find(t.subtopology_id);
    if (it == subs.end()) return fmt::format("Subtopology {} does not exist in the topology.", t.subtopology_id);
    const int32_t n = it->second.number_of_tasks;
    for (int32_t p : t.partitions)
      if (p < 0 || p >= n)
        return fmt::format("Task {} for subtopology {} is invalid. Number of tasks for this subtopology: {}", p,
                           t.subtopology_id, n);
  }
  return std::nullopt;
}

StreamsTaskOffsets offsets_of(const std::vector<Req::TaskOffset>& v) {
  StreamsTaskOffsets out;
  for (const auto& o : v) out[o.subtopology_id][o.partition] = o.offset;
  return out;
}

// The partitions of `tasks` in their subtopologies' input topics.
std::vector<Resp::TopicPartition> task_partitions(const StreamsGroup& sg, const streams::TaskSet& tasks) {
  std::map<std::string, std::set<int32_t>> by_topic;
  const auto& subs = *sg.configured->subtopologies;
  for (const auto& task : tasks) {
    const auto& parts = task.second;
    auto it = subs.find(task.first);
    if (it == subs.end()) continue;
    auto add = [&](const std::string& topic, int32_t count) {
      for (int32_t p : parts)
        if (p < count) by_topic[topic].insert(p);
    };
    for (const auto& topic : it->second.source_topics) add(topic, sg.partitions_of(topic).value_or(0));
    for (const auto& [topic, info] : it->second.repartition_source_topics) add(topic, info.partitions);
  }
  std::vector<Resp::TopicPartition> out;
  for (auto& [topic, ps] : by_topic) {
    auto& tp = out.emplace_back();
    tp.topic = topic;
    tp.partitions.assign(ps.begin(), ps.end());
  }
  return out;
}

}  // namespace

StreamsHeartbeatResult failed(ErrorCode e, std::optional<std::string> message) {
  StreamsHeartbeatResult r;
  r.response.error_code = static_cast<int16_t>(e);
  r.response.error_message = std::move(message);
  return r;
}

Resp::Status status(streams::StreamsStatus code, std::string detail) {
  Resp::Status s;
  s.status_code = static_cast<int8_t>(code);
  s.status_detail = std::move(detail);
  return s;
}

std::optional<std::pair<ErrorCode, std::string>> invalid_request(const Req& r) {
  if (r.topology)
    for (const auto& sub : r.topology->subtopologies)
      if (!sub.source_topic_regex.empty())
        return invalid("Regular expressions for source topics are not supported yet.");
  if (auto bad = invalid_ids(r)) return bad;
  return invalid_epoch_and_lists(r);
}

std::optional<std::pair<ErrorCode, std::string>> invalid_ids(const Req& r) {
  if (blank(r.member_id)) return invalid("MemberId can't be empty.");
  if (blank(r.group_id)) return invalid("GroupId can't be empty.");
  if (r.instance_id && blank(*r.instance_id)) return invalid("InstanceId can't be empty.");
  if (r.rack_id && blank(*r.rack_id)) return invalid("RackId can't be empty.");
  return std::nullopt;
}

std::optional<std::pair<ErrorCode, std::string>> invalid_epoch_and_lists(const Req& r) {
  if (r.member_epoch == 0) {
    if (auto bad = invalid_join(r)) return bad;
  } else if (r.member_epoch == -2) {
    if (!r.instance_id) return invalid("InstanceId can't be null.");
  } else if (r.member_epoch < -2) {
    return invalid(fmt::format("MemberEpoch is {}, but must be greater than or equal to -2.", r.member_epoch));
  }
  if ((r.active_tasks || r.standby_tasks || r.warmup_tasks) && !(r.active_tasks && r.standby_tasks && r.warmup_tasks))
    return invalid("If one task-type is non-null, all must be non-null.");
  if (r.member_epoch != 0 && r.topology) return invalid("Topology can only be provided when (re-)joining.");
  return std::nullopt;
}

std::optional<std::string> fenced_epoch(const StreamsGroupMember& m, const Req& r) {
  const int32_t epoch = m.assignment.member_epoch;
  if (r.member_epoch == 0) return std::nullopt;
  if (r.member_epoch > epoch)
    return fmt::format(
        "The streams group member has a greater member epoch ({}) than the one known by the group "
        "coordinator ({}). The member must abandon all its partitions and rejoin.",
        r.member_epoch, epoch);
  if (r.member_epoch < epoch && (r.member_epoch != m.assignment.previous_member_epoch ||
                                 !contained(r.active_tasks, m.assignment.assigned.active) ||
                                 !contained(r.standby_tasks, m.assignment.assigned.standby) ||
                                 !contained(r.warmup_tasks, m.assignment.assigned.warmup)))
    return fmt::format(
        "The streams group member has a smaller member epoch ({}) than the one known by the group "
        "coordinator ({}). The member must abandon all its partitions and rejoin.",
        r.member_epoch, epoch);
  return std::nullopt;
}

std::optional<std::string> invalid_tasks(const std::map<std::string, streams::ConfiguredSubtopology>& subtopologies,
                                         const Req& r) {
  for (const auto* list : {&r.active_tasks, &r.standby_tasks, &r.warmup_tasks})
    if (auto bad = invalid_task_list(subtopologies, *list)) return bad;
  return std::nullopt;
}

void update_member(StreamsGroupMember& m, const Req& r, const std::string& client_id, const std::string& client_host) {
  if (r.rack_id) m.rack_id = r.rack_id;
  if (r.rebalance_timeout_ms != -1) m.rebalance_timeout_ms = r.rebalance_timeout_ms;
  if (r.topology) m.topology_epoch = r.topology->epoch;
  m.client_id = client_id;
  m.client_host = client_host;
  if (r.process_id) m.process_id = *r.process_id;
  if (r.client_tags) {
    m.client_tags.clear();
    for (const auto& kv : *r.client_tags) m.client_tags[kv.key] = kv.value;
  }
  if (r.user_endpoint) m.user_endpoint = StreamsEndpoint{r.user_endpoint->host, r.user_endpoint->port};
  if (r.task_offsets) m.task_offsets = offsets_of(*r.task_offsets);
  if (r.task_end_offsets) m.task_end_offsets = offsets_of(*r.task_end_offsets);
}

std::vector<Resp::TaskIds> task_ids(const streams::TaskSet& tasks) {
  std::vector<Resp::TaskIds> out;
  for (const auto& [sub, parts] : tasks) {
    auto& t = out.emplace_back();
    t.subtopology_id = sub;
    t.partitions.assign(parts.begin(), parts.end());
  }
  return out;
}

std::vector<Resp::EndpointToPartitions> endpoints(const StreamsGroup& sg, const std::string& self) {
  std::vector<Resp::EndpointToPartitions> out;
  if (!sg.configured || !sg.configured->subtopologies) return out;
  auto add = [&](const StreamsGroupMember& m) {
    if (!m.user_endpoint) return;
    auto& e = out.emplace_back();
    e.user_endpoint.host = m.user_endpoint->host;
    e.user_endpoint.port = m.user_endpoint->port;
    e.active_partitions = task_partitions(sg, streams::task_set(m.assignment.assigned.active));
    e.standby_partitions = task_partitions(sg, m.assignment.assigned.standby);
  };
  for (const auto& [id, m] : sg.members)
    if (id != self) add(m);
  if (auto it = sg.members.find(self); it != sg.members.end()) add(it->second);
  return out;
}

}  // namespace skiff::group::streams_hb
