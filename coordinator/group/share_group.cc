#include "coordinator/group/share_group.h"

#include <algorithm>

#include "coordinator/group/consumer_group.h"

namespace skiff::group {
namespace {

using TP = std::pair<Uuid, int32_t>;

// One pool of the simple assignor: `members` (indexes into `current` /
// `out`) share `partitions` (Kafka's SimpleHomogeneousAssignmentBuilder, or
// one topic of the heterogeneous one).
void assign_pool(const std::vector<size_t>& members, const std::vector<TP>& partitions,
                 const std::vector<std::set<TP>>& current, std::vector<std::set<TP>>& out) {
  const size_t m = members.size(), p = partitions.size();
  if (m == 0 || p == 0) return;
  const size_t sharing = (m + p - 1) / p;
  const std::set<TP> pool(partitions.begin(), partitions.end());
  std::vector<size_t> desired(m);
  for (size_t i = 0; i < m; ++i) desired[i] = (sharing * p * (i + 1) + m - 1) / m - (sharing * p * i + m - 1) / m;
  std::map<TP, std::vector<size_t>> holders;  // partition -> member positions (in `members`)
  std::vector<std::set<TP>> got(m);
  // Keep what each member had, within its quota.
  for (size_t i = 0; i < m; ++i) {
    for (const auto& tp : current[members[i]]) {
      if (!pool.contains(tp) || got[i].size() >= desired[i]) continue;
      got[i].insert(tp);
      holders[tp].push_back(i);
    }
  }
  // No partition shared more than `sharing` times.
  for (auto& [tp, hs] : holders) {
    while (hs.size() > sharing) {
      got[hs.back()].erase(tp);
      hs.pop_back();
    }
  }
  // Fill the members under their quota, partition by partition, rotating.
  std::vector<size_t> unfilled;
  for (size_t i = 0; i < m; ++i)
    if (got[i].size() < desired[i]) unfilled.push_back(i);
  size_t next = 0;
  for (const auto& tp : partitions) {
    if (unfilled.empty()) break;
    auto& hs = holders[tp];
    size_t tried = 0;
    while (hs.size() < sharing && !unfilled.empty() && tried < unfilled.size()) {
      next %= unfilled.size();
      const size_t i = unfilled[next];
      if (std::find(hs.begin(), hs.end(), i) != hs.end()) {
        ++next;
        ++tried;
        continue;
      }
      got[i].insert(tp);
      hs.push_back(i);
      tried = 0;
      if (got[i].size() >= desired[i])
        unfilled.erase(unfilled.begin() + static_cast<std::ptrdiff_t>(next));
      else
        ++next;
    }
  }
  for (size_t i = 0; i < m; ++i) out[members[i]].insert(got[i].begin(), got[i].end());
}

}  // namespace

consumer::TargetAssignment simple_assign(const std::vector<SimpleAssignorMember>& members,
                                         const std::map<Uuid, std::set<int32_t>>& assignable) {
  consumer::TargetAssignment result;
  if (members.empty()) return result;
  std::vector<std::set<TP>> current(members.size()), out(members.size());
  for (size_t i = 0; i < members.size(); ++i)
    for (const auto& [t, ps] : members[i].current)
      for (int32_t p : ps) current[i].insert({t, p});
  auto partitions_of = [&](const Uuid& t) {
    std::vector<TP> v;
    if (auto it = assignable.find(t); it != assignable.end())
      for (int32_t p : it->second) v.push_back({t, p});
    return v;
  };
  const bool homogeneous = std::all_of(members.begin(), members.end(),
                                       [&](const auto& m) { return m.subscribed == members.front().subscribed; });
  if (homogeneous) {
    std::vector<TP> all;
    for (const auto& t : members.front().subscribed) {
      auto v = partitions_of(t);
      all.insert(all.end(), v.begin(), v.end());
    }
    std::vector<size_t> idx(members.size());
    for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
    assign_pool(idx, all, current, out);
  } else {
    std::set<Uuid> topics;
    for (const auto& m : members) topics.insert(m.subscribed.begin(), m.subscribed.end());
    for (const auto& t : topics) {
      std::vector<size_t> idx;
      for (size_t i = 0; i < members.size(); ++i)
        if (members[i].subscribed.contains(t)) idx.push_back(i);
      assign_pool(idx, partitions_of(t), current, out);
    }
  }
  for (size_t i = 0; i < members.size(); ++i) {
    auto& a = result[members[i].member_id];
    for (const auto& [t, p] : out[i]) a[t].insert(p);
  }
  return result;
}

ShareGroupMember* ShareGroup::get(const std::string& member_id) {
  auto it = members.find(member_id);
  return it == members.end() ? nullptr : &it->second;
}

std::set<std::string> ShareGroup::subscribed_names() const {
  std::set<std::string> names;
  for (const auto& [id, m] : members) names.insert(m.subscribed_names.begin(), m.subscribed_names.end());
  return names;
}

bool ShareGroup::refresh_subscribed_topics(const TopicResolver& resolve) {
  std::map<std::string, consumer::TopicMetadata> topics;
  if (resolve)
    for (const auto& name : subscribed_names())
      if (auto t = resolve(name)) topics[name] = *t;
  subscribed_topics = std::move(topics);
  const int64_t hash = topics_metadata_hash(subscribed_topics);
  if (hash == metadata_hash) return false;
  metadata_hash = hash;
  return true;
}

void ShareGroup::forget_unsubscribed_topics() {
  const auto names = subscribed_names();
  std::erase_if(subscribed_topics, [&](const auto& kv) { return !names.contains(kv.first); });
  metadata_hash = topics_metadata_hash(subscribed_topics);
}

bool ShareGroup::initialized_assignment_pending() const {
  if (members.empty() || !state_partitions || state_partitions->initialized.empty()) return false;
  const auto names = subscribed_names();
  if (names.empty()) return false;
  consumer::Assignment assigned;
  for (const auto& [id, a] : target)
    for (const auto& [t, ps] : a) assigned[t].insert(ps.begin(), ps.end());
  for (const auto& [id, topic] : state_partitions->initialized) {
    if (!names.contains(topic.name)) continue;
    auto it = assigned.find(id);
    if (it == assigned.end() || it->second != topic.partitions) return true;
  }
  return false;
}

void ShareGroup::compute_target() {
  std::map<Uuid, std::set<int32_t>> assignable;
  if (state_partitions)
    for (const auto& [id, topic] : state_partitions->initialized) assignable[id] = topic.partitions;
  std::vector<SimpleAssignorMember> in;
  for (const auto& [id, m] : members) {
    SimpleAssignorMember am{id, {}, {}};
    for (const auto& name : m.subscribed_names)
      if (auto t = subscribed_topics.find(name); t != subscribed_topics.end()) am.subscribed.insert(t->second.id);
    if (auto t = target.find(id); t != target.end()) am.current = t->second;
    in.push_back(std::move(am));
  }
  target = simple_assign(in, assignable);
  assignment_epoch = group_epoch;
  assigned_at = std::chrono::steady_clock::now();
}

bool ShareGroup::reconcile(ShareGroupMember& m) {
  auto t = target.find(m.member_id);
  consumer::Assignment next;
  if (t != target.end()) {
    std::set<Uuid> subscribed;
    for (const auto& name : m.subscribed_names)
      if (auto s = subscribed_topics.find(name); s != subscribed_topics.end()) subscribed.insert(s->second.id);
    for (const auto& [id, ps] : t->second)
      if (subscribed.contains(id)) next[id] = ps;
  }
  ShareGroupMember before = m;
  if (m.member_epoch != assignment_epoch) {
    m.previous_member_epoch = m.member_epoch;
    m.member_epoch = assignment_epoch;
    m.state = 0;
  }
  m.assigned = std::move(next);
  return !before.same_assignment(m);
}

void ShareGroup::remove(const std::string& member_id) {
  members.erase(member_id);
  target.erase(member_id);
  ++group_epoch;
}

}  // namespace skiff::group
