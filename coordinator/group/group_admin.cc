// GroupCoordinator: DescribeGroups, ListGroups and DeleteGroups.
#include <algorithm>
#include <set>

#include "common/log_escape.h"
#include "coordinator/group/group_coordinator.h"
#include "coordinator/runtime/coordinator_log.h"

namespace skiff::group {
namespace {

bool iequals(const std::string& a, const std::string& b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return std::tolower(x) == std::tolower(y); });
}

bool matches(const std::vector<std::string>& filter, const std::string& value) {
  return filter.empty() || std::any_of(filter.begin(), filter.end(), [&](auto& f) { return iequals(f, value); });
}

}  // namespace

GroupDescription GroupCoordinator::describe_group(const std::string& group_id) {
  GroupDescription d;
  d.group_id = group_id;
  d.state = state_name(GroupState::kDead);
  if (shutting_down_) {
    d.error = ErrorCode::kNotCoordinator;
    return d;
  }
  auto g = find(group_id);
  if (!g) return d;  // Kafka: an unknown group is described as Dead, without error (before v6)
  std::lock_guard lock(g->mu);
  if (g->is_consumer() || g->is_share() || g->is_streams()) {  // Kafka 4.4: Dead, and GROUP_ID_NOT_FOUND from v6
    d.error_message = "Group " + group_id + " is not a classic group.";
    return d;
  }
  d.found = true;
  d.state = state_name(g->state());
  d.protocol_type = g->protocol_type.value_or("");
  const bool stable = g->is(GroupState::kStable);
  if (stable) d.protocol_name = g->protocol_name.value_or("");
  for (const auto& jm : g->current_member_metadata()) {
    const auto& m = g->members().at(jm.member_id);
    MemberDescription md{m.member_id, m.group_instance_id, m.client_id, m.client_host, {}, {}};
    if (stable) {
      md.metadata = jm.metadata;
      md.assignment = m.assignment;
    }
    d.members.push_back(std::move(md));
  }
  return d;
}

std::vector<GroupOverview> GroupCoordinator::list_groups(const std::vector<std::string>& states_filter,
                                                         const std::vector<std::string>& types_filter) {
  std::vector<GroupPtr> all;
  {
    std::shared_lock lock(map_mu_);
    for (auto& [id, g] : groups_) all.push_back(g);
  }
  std::vector<GroupOverview> out;
  for (auto& g : all) {
    std::lock_guard lock(g->mu);
    if (g->is(GroupState::kDead)) continue;
    std::string state = g->state_text();
    std::string type = g->type_name();
    if (!matches(states_filter, state) || !matches(types_filter, type)) continue;
    // Kafka: a consumer group's protocol type is "consumer", a share
    // group's "share", a streams group's "streams".
    out.push_back({g->group_id(),
                   g->is_streams()    ? "streams"
                   : g->is_share()    ? "share"
                   : g->is_consumer() ? "consumer"
                                      : g->protocol_type.value_or(""),
                   state, type});
  }
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.group_id < b.group_id; });
  return out;
}

std::vector<GroupSnapshot> GroupCoordinator::group_snapshots() {
  std::vector<GroupSnapshot> out;
  if (shutting_down_) return out;
  std::vector<GroupPtr> all;
  {
    std::shared_lock lock(map_mu_);
    for (auto& [id, g] : groups_) all.push_back(g);
  }
  for (auto& g : all) {
    std::lock_guard lock(g->mu);
    if (g->is(GroupState::kDead)) continue;
    GroupSnapshot s{g->group_id(), g->type_name(), g->state_text(), g->size(), {}};
    if (g->is_consumer()) s.members = g->consumer->members.size();  // its classic part has none
    if (g->is_share()) s.members = g->share->members.size();
    if (g->is_streams()) s.members = g->streams->members.size();
    s.offsets.reserve(g->offsets.size());
    for (const auto& [tp, o] : g->offsets) s.offsets.emplace_back(tp, o.offset);
    out.push_back(std::move(s));
  }
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.group_id < b.group_id; });
  return out;
}

void GroupCoordinator::write_modern_tombstones(
    GroupMetadata& g, FlushPoints& last,
    std::vector<std::pair<std::string, std::vector<SharePartitionId>>>& share_state) {
  const auto& id = g.group_id();
  if (g.is_consumer())
    if (auto seq = store_->write_consumer(id, consumer_group_tombstones(id))) last.merge(*seq);
  if (g.is_streams())
    if (auto seq = store_->write_streams(id, streams_group_tombstones(id, *g.streams))) last.merge(*seq);
  if (g.is_share()) {
    if (auto parts = share_state_partitions(*g.share); !parts.empty()) share_state.emplace_back(id, parts);
    if (auto seq = store_->write_share(id, share_group_tombstones(id, *g.share))) last.merge(*seq);
  }
}

std::vector<ErrorCode> GroupCoordinator::delete_groups(const std::vector<std::string>& group_ids) {
  std::vector<ErrorCode> out;
  FlushPoints last;
  // Share groups' partition state, deleted in the share coordinator once
  // the groups are gone (Kafka deletes it first and keeps the group when
  // that fails; here a failure is logged: the state is orphaned, never read).
  std::vector<std::pair<std::string, std::vector<SharePartitionId>>> share_state;
  for (const auto& id : group_ids) {
    if (shutting_down_) {
      out.push_back(ErrorCode::kNotCoordinator);
      continue;
    }
    auto g = find(id);
    if (!g) {
      out.push_back(ErrorCode::kGroupIdNotFound);
      continue;
    }
    std::lock_guard lock(g->mu);
    if (g->is(GroupState::kDead)) {
      out.push_back(ErrorCode::kGroupIdNotFound);
    } else if (!g->is_empty_group()) {
      out.push_back(ErrorCode::kNonEmptyGroup);
    } else {
      g->transition_to(GroupState::kDead, now_ms());
      write_modern_tombstones(*g, last, share_state);
      // Kafka: a tombstone for every committed offset and every partition
      // with pending offsets, then the group's, so compaction drops them all.
      std::set<TopicPartition> tps;
      for (const auto& [tp, o] : g->offsets) tps.insert(tp);
      for (const auto& [pid, offsets] : g->pending_offsets)
        for (const auto& [tp, po] : offsets) tps.insert(tp);
      if (auto seq = store_->delete_group(id, {tps.begin(), tps.end()})) last.merge(*seq);
      g->offsets.clear();
      g->pending_offsets.clear();  // Kafka: their tombstones too; a later marker finds nothing
      g->pending_members.clear();
      forget(*g);
      coordinator::log().info("group {}: deleted", escaped(id));
      out.push_back(ErrorCode::kNone);
    }
  }
  store_->flush(last);
  if (auto* port = share_state_.load())
    for (auto& entry : share_state) {
      const std::string id = entry.first;
      port->remove(id, std::move(entry.second), [id](const std::vector<ShareStateResult>& results) {
        for (const auto& r : results)
          if (r.error != ErrorCode::kNone) {
            coordinator::log().warn("group {}: share-partition state not deleted: {}", escaped(id), escaped(r.message));
            break;
          }
      });
    }
  return out;
}

}  // namespace skiff::group
