// StreamsGroup's bookkeeping (streams_group.h).
#include "coordinator/group/streams_group.h"

#include "coordinator/group/consumer_group.h"
#include "coordinator/group/streams/sticky_task_assignor.h"

namespace skiff::group {

StreamsGroupImage StreamsGroup::image() const {
  return {group_epoch,
          metadata_hash,
          validated_topology_epoch,
          assignment_configs,
          stored_description_epoch,
          topology,
          assignment_epoch,
          targets,
          members};
}

// Kafka's StreamsGroup.maybeUpdateGroupState.
std::string StreamsGroup::state() const {
  if (members.empty()) return "Empty";
  if (!topology || !configured || !configured->ready()) return "NotReady";
  if (group_epoch > assignment_epoch) return "Assigning";
  for (const auto& [id, m] : members)
    if (!m.reconciled_to(assignment_epoch)) return "Reconciling";
  return "Stable";
}

StreamsGroupMember* StreamsGroup::get(const std::string& member_id) {
  auto it = members.find(member_id);
  return it == members.end() ? nullptr : &it->second;
}

int64_t StreamsGroup::resolve_topics(const TopicResolver& resolve) {
  topics.clear();
  if (!topology || !resolve) return 0;
  for (const auto& name : streams::required_topics(*topology))
    if (auto t = resolve(name)) topics[name] = *t;
  return topics_metadata_hash(topics);
}

std::optional<int32_t> StreamsGroup::partitions_of(const std::string& topic) const {
  auto it = topics.find(topic);
  if (it == topics.end()) return std::nullopt;
  return it->second.partitions;
}

void StreamsGroup::set_assignment(StreamsGroupMember& m, const streams::MemberAssignmentState& next) {
  owners.update(m.assignment, next);
  m.assignment = next;
}

void StreamsGroup::remove(const std::string& member_id) {
  auto it = members.find(member_id);
  if (it == members.end()) return;
  owners.remove(it->second.assignment);
  targets.erase(member_id);
  members.erase(it);
}

void StreamsGroup::compute_target(int32_t epoch, int32_t num_standby_replicas) {
  streams::AssignorGroup in;
  in.num_standby_replicas = num_standby_replicas;
  for (const auto& [id, m] : members) {
    auto& am = in.members[id];
    am.process_id = m.process_id;
    const auto& t = target_of(id);
    am.active = t.active;
    am.standby = t.standby;
    am.warmup = t.warmup;
    am.task_offsets = m.task_offsets;
  }
  streams::TopologyTasks tasks;
  if (configured && configured->subtopologies) tasks = streams::topology_tasks(*configured->subtopologies);
  auto out = streams::sticky_assign(in, tasks);
  targets.clear();
  for (const auto& [id, m] : members) targets[id] = std::move(out[id]);
  assignment_epoch = epoch;
}

const streams::TasksTuple& StreamsGroup::target_of(const std::string& member_id) const {
  static const streams::TasksTuple kEmpty;
  auto it = targets.find(member_id);
  return it == targets.end() ? kEmpty : it->second;
}

// The active task of a member that covers a committed partition, with the
// epoch it got it at; nothing when it holds none.
static std::optional<int32_t> held_since(const StreamsGroup& sg, const StreamsGroupMember& m,
                                         const TopicPartition& tp) {
  if (!sg.configured || !sg.configured->subtopologies) return std::nullopt;
  for (const auto& [sub, cs] : *sg.configured->subtopologies) {
    if (!cs.source_topics.contains(tp.topic) && !cs.repartition_source_topics.contains(tp.topic)) continue;
    for (const auto* held : {&m.assignment.assigned.active, &m.assignment.pending_revocation.active}) {
      auto s = held->find(sub);
      if (s == held->end()) continue;
      if (auto e = s->second.find(tp.partition); e != s->second.end()) return e->second;
    }
  }
  return std::nullopt;
}

ErrorCode StreamsGroup::check_commit(const std::string& member_id, int32_t epoch, bool transactional,
                                     int16_t api_version, const std::vector<TopicPartition>& partitions) const {
  if (epoch < 0 && members.empty()) return ErrorCode::kNone;
  if (transactional && member_id.empty() && epoch == -1) return ErrorCode::kNone;
  auto it = members.find(member_id);
  if (it == members.end()) return ErrorCode::kUnknownMemberId;
  if (!transactional && api_version < 9) return ErrorCode::kUnsupportedVersion;
  const auto& m = it->second;
  if (epoch > m.assignment.member_epoch) return ErrorCode::kStaleMemberEpoch;
  if (epoch == m.assignment.member_epoch) return ErrorCode::kNone;
  for (const auto& tp : partitions) {
    auto since = held_since(*this, m, tp);
    if (!since || *since > epoch) return ErrorCode::kStaleMemberEpoch;
  }
  return ErrorCode::kNone;
}

ErrorCode StreamsGroup::check_fetch(const std::optional<std::string>& member_id, int32_t epoch) const {
  if ((!member_id || member_id->empty()) && epoch < 0) return ErrorCode::kNone;
  auto it = members.find(member_id.value_or(""));
  if (it == members.end()) return ErrorCode::kUnknownMemberId;
  return epoch == it->second.assignment.member_epoch ? ErrorCode::kNone : ErrorCode::kStaleMemberEpoch;
}

}  // namespace skiff::group
