#include "coordinator/group/streams/streams_conversions.h"

namespace skiff::group::streams {

namespace {

using HeartbeatRequest = protocol::StreamsGroupHeartbeatRequest;
using CurrentValue = protocol::StreamsGroupCurrentMemberAssignmentValue;
using TargetValue = protocol::StreamsGroupTargetAssignmentMemberValue;

TopicInfo topic_from_heartbeat(const HeartbeatRequest::TopicInfo& r) {
  TopicInfo t{r.name, r.partitions, r.replication_factor, {}};
  for (const auto& c : r.topic_configs) t.configs[c.key] = c.value;
  return t;
}

// Any generated TaskIds list (subtopology_id, partitions) to a TaskSet.
template <class Ids>
TaskSet tasks_from(const std::vector<Ids>& ids) {
  TaskSet out;
  for (const auto& i : ids)
    for (int32_t p : i.partitions) add_task(out, i.subtopology_id, p);
  return out;
}

template <class Ids>
std::vector<Ids> tasks_to(const TaskSet& tasks) {
  std::vector<Ids> out;
  for (const auto& [sub, parts] : tasks) {
    Ids i;
    i.subtopology_id = sub;
    i.partitions.assign(parts.begin(), parts.end());
    out.push_back(std::move(i));
  }
  return out;
}

TaskEpochs active_from(const std::vector<CurrentValue::TaskIds>& ids, int32_t member_epoch) {
  TaskEpochs out;
  for (const auto& i : ids) {
    const bool epochs = i.assignment_epochs && i.assignment_epochs->size() == i.partitions.size();
    for (size_t k = 0; k < i.partitions.size(); ++k)
      out[i.subtopology_id][i.partitions[k]] = epochs ? (*i.assignment_epochs)[k] : member_epoch;
  }
  return out;
}

std::vector<CurrentValue::TaskIds> active_to(const TaskEpochs& tasks) {
  std::vector<CurrentValue::TaskIds> out;
  for (const auto& [sub, parts] : tasks) {
    CurrentValue::TaskIds i;
    i.subtopology_id = sub;
    i.assignment_epochs.emplace();
    for (const auto& [p, e] : parts) {
      i.partitions.push_back(p);
      i.assignment_epochs->push_back(e);
    }
    out.push_back(std::move(i));
  }
  return out;
}

}  // namespace

Topology topology_from_heartbeat(const HeartbeatRequest::Topology& t) {
  Topology out;
  out.epoch = t.epoch;
  for (const auto& r : t.subtopologies) {
    Subtopology s{r.subtopology_id, r.source_topics, r.repartition_sink_topics, {}, {}, {}};
    for (const auto& x : r.state_changelog_topics) s.state_changelog_topics.push_back(topic_from_heartbeat(x));
    for (const auto& x : r.repartition_source_topics) s.repartition_source_topics.push_back(topic_from_heartbeat(x));
    for (const auto& g : r.copartition_groups)
      s.copartition_groups.push_back(CopartitionGroup{g.source_topics, g.repartition_source_topics});
    out.subtopologies[s.id] = std::move(s);
  }
  return out;
}

bool has_source_topic_regex(const HeartbeatRequest::Topology& t) {
  for (const auto& s : t.subtopologies)
    if (!s.source_topic_regex.empty()) return true;
  return false;
}

std::optional<TasksTuple> owned_from_heartbeat(const HeartbeatRequest& r) {
  if (!r.active_tasks && !r.standby_tasks && !r.warmup_tasks) return std::nullopt;
  TasksTuple t;
  if (r.active_tasks) t.active = tasks_from(*r.active_tasks);
  if (r.standby_tasks) t.standby = tasks_from(*r.standby_tasks);
  if (r.warmup_tasks) t.warmup = tasks_from(*r.warmup_tasks);
  return t;
}

MemberAssignmentState member_from_record(const CurrentValue& v, std::string process_id) {
  MemberAssignmentState m;
  m.process_id = std::move(process_id);
  m.state = member_state_from(v.state);
  m.member_epoch = v.member_epoch;
  m.previous_member_epoch = v.previous_member_epoch;
  m.assigned = {active_from(v.active_tasks, v.member_epoch), tasks_from(v.standby_tasks), tasks_from(v.warmup_tasks)};
  m.pending_revocation = {active_from(v.active_tasks_pending_revocation, v.member_epoch),
                          tasks_from(v.standby_tasks_pending_revocation),
                          tasks_from(v.warmup_tasks_pending_revocation)};
  return m;
}

CurrentValue member_to_record(const MemberAssignmentState& m) {
  CurrentValue v;
  v.member_epoch = m.member_epoch;
  v.previous_member_epoch = m.previous_member_epoch;
  v.state = static_cast<int8_t>(m.state);
  v.active_tasks = active_to(m.assigned.active);
  v.standby_tasks = tasks_to<CurrentValue::TaskIds>(m.assigned.standby);
  v.warmup_tasks = tasks_to<CurrentValue::TaskIds>(m.assigned.warmup);
  v.active_tasks_pending_revocation = active_to(m.pending_revocation.active);
  v.standby_tasks_pending_revocation = tasks_to<CurrentValue::TaskIds>(m.pending_revocation.standby);
  v.warmup_tasks_pending_revocation = tasks_to<CurrentValue::TaskIds>(m.pending_revocation.warmup);
  return v;
}

TasksTuple target_from_record(const TargetValue& v) {
  return TasksTuple{tasks_from(v.active_tasks), tasks_from(v.standby_tasks), tasks_from(v.warmup_tasks)};
}

TargetValue target_to_record(const TasksTuple& t) {
  TargetValue v;
  v.active_tasks = tasks_to<TargetValue::TaskIds>(t.active);
  v.standby_tasks = tasks_to<TargetValue::TaskIds>(t.standby);
  v.warmup_tasks = tasks_to<TargetValue::TaskIds>(t.warmup);
  return v;
}

}  // namespace skiff::group::streams
