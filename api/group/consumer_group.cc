#include "api/group/consumer_group.h"

#include <algorithm>

namespace skiff::api::group {

std::string ConsumerGroup::state() const {
  if (members.empty()) return "Empty";
  if (group_epoch > assignment_epoch) return "Assigning";
  for (const auto& [id, m] : members) {
    if (m.assignment.state != consumer::MemberState::kStable || m.assignment.member_epoch != assignment_epoch)
      return "Reconciling";
  }
  return "Stable";
}

ConsumerGroupMember* ConsumerGroup::get(const std::string& member_id) {
  auto it = members.find(member_id);
  return it == members.end() ? nullptr : &it->second;
}

void ConsumerGroup::remove(const std::string& member_id) {
  auto it = members.find(member_id);
  if (it == members.end()) return;
  owners.remove(it->second.assignment);
  if (it->second.instance_id) {
    auto s = static_members.find(*it->second.instance_id);
    if (s != static_members.end() && s->second == member_id) static_members.erase(s);
  }
  target.erase(member_id);
  members.erase(it);
  ++group_epoch;
}

void ConsumerGroup::rename(const std::string& old_id, const std::string& new_id) {
  auto node = members.extract(old_id);
  if (node.empty()) return;
  if (auto t = target.find(old_id); t != target.end()) {
    target[new_id] = std::move(t->second);
    target.erase(t);
  }
  node.key() = new_id;
  node.mapped().member_id = new_id;
  node.mapped().session_timer_armed = false;  // the old id's timer will not find it
  members.insert(std::move(node));
  if (const auto& instance = members.at(new_id).instance_id) static_members[*instance] = new_id;
}

bool ConsumerGroup::set_assignment(ConsumerGroupMember& m, const consumer::MemberAssignmentState& next) {
  if (m.assignment == next) return true;
  if (!owners.update(m.assignment, next)) return false;
  m.assignment = next;
  return true;
}

bool ConsumerGroup::refresh_subscribed_topics(const TopicResolver& resolve) {
  std::map<std::string, consumer::TopicMetadata> now;
  for (const auto& [id, m] : members) {
    for (const auto& name : m.subscribed_names) {
      if (now.contains(name)) continue;
      if (auto t = resolve(name)) now.emplace(name, *t);
    }
  }
  auto same = [](const auto& a, const auto& b) {
    return a.first == b.first && a.second.id == b.second.id && a.second.partitions == b.second.partitions;
  };
  if (now.size() == subscribed_topics.size() && std::equal(now.begin(), now.end(), subscribed_topics.begin(), same))
    return false;
  subscribed_topics = std::move(now);
  return true;
}

std::set<Uuid> ConsumerGroup::subscribed_ids(const ConsumerGroupMember& m) const {
  std::set<Uuid> ids;
  for (const auto& name : m.subscribed_names) {
    auto it = subscribed_topics.find(name);
    if (it != subscribed_topics.end()) ids.insert(it->second.id);
  }
  return ids;
}

std::string ConsumerGroup::preferred_assignor(const std::string& fallback) const {
  std::map<std::string, int> votes;
  for (const auto& [id, m] : members)
    if (m.server_assignor) ++votes[*m.server_assignor];
  std::string best = fallback;
  int most = 0;
  for (const auto& [name, n] : votes) {
    if (n > most) {
      best = name;
      most = n;
    }
  }
  return best;
}

void ConsumerGroup::maybe_compute_target(const std::string& default_assignor) {
  if (group_epoch <= assignment_epoch) return;
  consumer::AssignmentSpec spec;
  for (const auto& [name, t] : subscribed_topics) spec.topics.emplace(t.id, t);
  for (const auto& [id, m] : members) {
    auto cur = target.find(id);
    spec.members.push_back(
        {id, m.rack_id, subscribed_ids(m), cur == target.end() ? consumer::Assignment{} : cur->second, m.instance_id});
  }
  auto assignor = consumer::make_assignor(preferred_assignor(default_assignor));
  if (!assignor) assignor = consumer::make_assignor(default_assignor);
  target = assignor->assign(spec);
  assignment_epoch = group_epoch;
}

}  // namespace skiff::api::group
