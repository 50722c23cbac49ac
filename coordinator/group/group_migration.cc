// GroupCoordinator: online migration between the classic and the consumer
// group protocols in one group (KIP-848; Kafka's GroupMetadataManager
// convertToConsumerGroup / convertToClassicGroup, ConsumerGroup.fromClassicGroup,
// ClassicGroup.fromConsumerGroup), as group.consumer.migration.policy allows.
//
// Upgrade: a ConsumerGroupHeartbeat joining a non-empty classic group that
// uses the "consumer" embedded protocol. Every classic member becomes a
// ConsumerGroupMember with ClassicMemberMetadata: its subscription from its
// JoinGroup metadata, its current and target assignment from its last
// SyncGroup assignment, its epoch the classic generation (Stable). Waiting
// JoinGroup/SyncGroup requests are answered REBALANCE_IN_PROGRESS. The
// joining member then bumps the group epoch and the classic members learn of
// the new target from their next Heartbeat (consumer_classic_members.cc).
//
// Downgrade: when the last consumer-protocol member leaves (or is fenced) and
// classic members remain, the group is written off as a consumer group
// (tombstones) and becomes a Stable classic group at the group epoch before
// the leave, each member with its current assignment in the consumer
// protocol's format; a rebalance starts at once, so the members rejoin.
//
// Threads: called with the group's mutex held, as every operation on it.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "common/log_escape.h"
#include "coordinator/group/consumer_group_log.h"
#include "coordinator/group/group_coordinator.h"
#include "coordinator/runtime/coordinator_log.h"
#include "protocol/consumer_protocol.h"

namespace skiff::group {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

ConsumerHeartbeatResult not_found(std::string message) {
  ConsumerHeartbeatResult r;
  r.error = ErrorCode::kGroupIdNotFound;
  r.message = std::move(message);
  return r;
}

// Named partitions as topic ids (topics that no longer exist are dropped).
consumer::Assignment to_ids(const protocol::NamedPartitions& named, const TopicResolver& resolve) {
  consumer::Assignment out;
  for (const auto& [name, ps] : named) {
    auto t = resolve ? resolve(name) : std::nullopt;
    if (t && !ps.empty()) out[t->id].insert(ps.begin(), ps.end());
  }
  return out;
}

// The member's partitions minus those another member already owns.
consumer::Assignment unowned(const consumer::Assignment& a, const consumer::PartitionOwnership& owners) {
  consumer::Assignment out;
  for (const auto& [t, ps] : a)
    for (int32_t p : ps)
      if (owners.epoch(t, p) == -1) out[t].insert(p);
  return out;
}

// A classic member as a member of the consumer group it is upgraded to
// (Kafka's ConsumerGroupMember from a classic member): its subscription and
// rack from its JoinGroup metadata, its assignment (minus partitions another
// member already holds) from its SyncGroup, all at the classic generation.
// Nothing when its embedded protocol is malformed.
std::optional<ConsumerGroupMember> from_classic_member(const GroupMetadata& g, const std::string& id,
                                                       const MemberMetadata& cm, const TopicResolver& resolve,
                                                       const consumer::PartitionOwnership& owners) {
  const Bytes* md = g.protocol_name ? cm.metadata_for(*g.protocol_name) : nullptr;
  if (!md && !cm.protocols.empty()) md = &cm.protocols.front().metadata;
  auto sub = md ? protocol::decode_subscription(*md) : std::nullopt;
  auto assigned = protocol::decode_assignment(cm.assignment);
  if (!sub || !assigned) return std::nullopt;
  ConsumerGroupMember m;
  m.member_id = id;
  m.instance_id = cm.group_instance_id;
  m.rack_id = sub->rack_id;
  m.client_id = cm.client_id;
  m.client_host = cm.client_host;
  m.subscribed_names = sub->topics;
  std::sort(m.subscribed_names.begin(), m.subscribed_names.end());
  m.subscribed_names.erase(std::unique(m.subscribed_names.begin(), m.subscribed_names.end()), m.subscribed_names.end());
  m.rebalance_timeout_ms = cm.rebalance_timeout_ms;
  m.classic = ClassicMemberMetadata{cm.session_timeout_ms, cm.protocols};
  m.assignment.state = consumer::MemberState::kStable;
  m.assignment.member_epoch = m.assignment.previous_member_epoch = g.generation_id;
  m.assignment.assigned = unowned(to_ids(*assigned, resolve), owners);
  // Held since the classic generation (Kafka stamps the member epoch).
  for (const auto& [t, ps] : m.assignment.assigned) {
    for (int32_t part : ps) m.assignment.assignment_epochs[t][part] = g.generation_id;
  }
  return m;
}

}  // namespace

bool migration_upgrade_enabled(const std::string& policy) {
  const auto p = lower(policy);
  return p == "upgrade" || p == "bidirectional";
}

bool migration_downgrade_enabled(const std::string& policy) {
  const auto p = lower(policy);
  return p == "downgrade" || p == "bidirectional";
}

std::optional<ConsumerHeartbeatResult> GroupCoordinator::upgrade_classic_group(GroupMetadata& g,
                                                                               const ConsumerHeartbeatParams& p) {
  // Kafka 4.4's validateOnlineUpgrade: GROUP_ID_NOT_FOUND with the reason.
  auto refuse = [&](const char* why) {
    auto message = fmt::format("Cannot upgrade classic group {} to consumer group because {}.", g.group_id(), why);
    coordinator::log().info("{}", escaped(message));
    return not_found(std::move(message));
  };
  if (!migration_upgrade_enabled(config_.consumer_migration_policy)) return refuse("online upgrade is disabled");
  if (g.protocol_type != protocol::kConsumerProtocolType)
    return refuse("the group does not use the consumer embedded protocol");
  if (g.size() > static_cast<size_t>(config_.consumer_max_size))
    return refuse("the group size exceeds the consumer group maximum size");
  auto cg = std::make_unique<ConsumerGroup>();
  cg->group_epoch = cg->assignment_epoch = g.generation_id;
  const TopicResolver& resolve = p.resolve ? p.resolve : topics_;
  for (const auto& [id, cm] : g.members()) {
    auto m = from_classic_member(g, id, cm, resolve, cg->owners);
    if (!m) return refuse("the embedded consumer protocol is malformed");
    cg->owners.update({}, m->assignment);
    cg->target[id] = m->assignment.assigned;
    if (m->instance_id) cg->static_members[*m->instance_id] = id;
    cg->members.emplace(id, std::move(*m));
  }
  // Their waiting requests are answered; they rejoin the consumer group.
  for (auto& [id, cm] : g.members()) cm.answer_waiting(ErrorCode::kRebalanceInProgress);
  coordinator::log().info("group {}: upgraded from classic (generation {}, {} member(s)) to consumer group",
                          escaped(g.group_id()), g.generation_id, g.size());
  g.reset_classic(now_ms());
  g.consumer = std::move(cg);
  for (auto& [id, m] : g.consumer->members) schedule_consumer_session(g, m);
  return std::nullopt;
}

std::optional<FlushPoints> GroupCoordinator::write_consumer_change(GroupMetadata& g, const ConsumerGroupImage& before) {
  if (should_downgrade(g, before)) return downgrade_to_classic(g, before);
  return persist_consumer(g, before);
}

bool GroupCoordinator::should_downgrade(const GroupMetadata& g, const ConsumerGroupImage& before) const {
  const auto& cg = *g.consumer;
  if (cg.members.empty()) return false;  // Kafka: an empty group stays a consumer group
  for (const auto& [id, m] : cg.members)
    if (!m.uses_classic()) return false;
  const bool consumer_member_left = std::any_of(before.members.begin(), before.members.end(), [&](const auto& kv) {
    return !kv.second.uses_classic() && !cg.members.contains(kv.first);
  });
  if (!consumer_member_left) return false;
  if (!migration_downgrade_enabled(config_.consumer_migration_policy)) {
    coordinator::log().info(
        "Cannot downgrade consumer group {} to classic group because the online downgrade is disabled.",
        escaped(g.group_id()));
    return false;
  }
  if (cg.members.size() > static_cast<size_t>(config_.max_size)) {
    coordinator::log().info(
        "Cannot downgrade consumer group {} to classic group because its group size is greater than classic group "
        "max size.",
        escaped(g.group_id()));
    return false;
  }
  return true;
}

std::optional<FlushPoints> GroupCoordinator::downgrade_to_classic(GroupMetadata& g, const ConsumerGroupImage& before) {
  auto cg = std::move(g.consumer);
  std::vector<ConsumerGroupRecord> records;
  auto tombstones_of = [&](const std::string& member_id) {
    for (int16_t type : {kConsumerCurrentAssignmentType, kConsumerTargetMemberType, kConsumerMemberMetadataType}) {
      ConsumerGroupRecord r;
      r.type = type;
      r.group_id = g.group_id();
      r.member_id = member_id;
      r.tombstone = true;
      records.push_back(std::move(r));
    }
  };
  for (const auto& [id, m] : before.members) tombstones_of(id);
  for (const auto& [id, m] : cg->members)
    if (!before.members.contains(id)) tombstones_of(id);
  for (auto& r : consumer_group_tombstones(g.group_id())) records.push_back(std::move(r));
  auto written = store_->write_consumer(g.group_id(), records);

  std::map<Uuid, std::string> names;
  for (const auto& [name, t] : cg->subscribed_topics) names[t.id] = name;
  g.reset_classic(now_ms());
  g.generation_id = before.group_epoch;  // the epoch the remaining members know
  g.protocol_type = protocol::kConsumerProtocolType;
  for (const auto& [id, m] : cg->members) {
    MemberMetadata cm;
    cm.member_id = id;
    cm.group_instance_id = m.instance_id;
    cm.client_id = m.client_id;
    cm.client_host = m.client_host;
    cm.rebalance_timeout_ms = m.rebalance_timeout_ms;
    cm.session_timeout_ms = m.classic->session_timeout_ms;
    cm.protocol_type = protocol::kConsumerProtocolType;
    cm.protocols = m.classic->protocols;
    g.add(std::move(cm));
  }
  g.protocol_name = g.select_protocol();
  for (auto& [id, cm] : g.members()) {
    protocol::NamedPartitions named;
    for (const auto& [t, ps] : cg->members.at(id).assignment.assigned)
      if (auto n = names.find(t); n != names.end()) named[n->second] = ps;
    const Bytes* md = cm.metadata_for(*g.protocol_name);
    cm.assignment = protocol::encode_assignment(md ? protocol::embedded_protocol_version(*md) : 0, named);
  }
  g.restore_stable(now_ms());
  persist(g);
  for (auto& [id, cm] : g.members()) schedule_session_expiry(g, cm);
  coordinator::log().info("group {}: downgraded from consumer to classic group (generation {}, {} member(s))",
                          escaped(g.group_id()), g.generation_id, g.size());
  prepare_rebalance(g, fmt::format("Downgrade group {} from consumer to classic for member leaving.", g.group_id()));
  return written;
}

}  // namespace skiff::group
