#include "coordinator/group/consumer_group.h"

#include <algorithm>

#include "common/wall_clock.h"

namespace skiff::group {
namespace {

// FNV-1a 64 over a byte stream, finished with splitmix64 (FNV alone mixes
// the last bytes poorly).
class StableHash {
 public:
  void byte(uint8_t b) { h_ = (h_ ^ b) * 0x100000001b3ULL; }
  void u32(uint32_t v) {
    for (int s = 24; s >= 0; s -= 8) byte(static_cast<uint8_t>(v >> s));
  }
  void u64(uint64_t v) {
    for (int s = 56; s >= 0; s -= 8) byte(static_cast<uint8_t>(v >> s));
  }
  void str(const std::string& v) {
    u32(static_cast<uint32_t>(v.size()));
    for (char c : v) byte(static_cast<uint8_t>(c));
  }
  int64_t done() const {
    uint64_t z = h_ + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return static_cast<int64_t>(z ^ (z >> 31));
  }

 private:
  uint64_t h_ = 0xcbf29ce484222325ULL;
};

// Per topic: magic byte 0, the 16 id bytes, the name (u32 length + bytes),
// the partition count (u32); big-endian.
int64_t topic_hash(const consumer::TopicMetadata& t) {
  StableHash h;
  h.byte(0);
  for (uint8_t b : t.id.bytes) h.byte(b);
  h.str(t.name);
  h.u32(static_cast<uint32_t>(t.partitions));
  return h.done();
}

}  // namespace

int64_t topics_metadata_hash(const std::map<std::string, consumer::TopicMetadata>& topics) {
  if (topics.empty()) return 0;
  StableHash h;  // the topics' hashes in name order (the map's)
  for (const auto& [name, t] : topics) h.u64(static_cast<uint64_t>(topic_hash(t)));
  return h.done();
}

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
  std::erase_if(regexes, [this](const auto& r) {
    return std::none_of(members.begin(), members.end(),
                        [&](const auto& m) { return m.second.subscribed_regex == r.first; });
  });
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

void ConsumerGroup::refresh_regexes(uint64_t topics_version, const TopicNamesLister& list,
                                    std::chrono::milliseconds min_interval) {
  std::map<std::string, ResolvedRegex> next;
  bool fresh = false;
  for (const auto& [id, m] : members) {
    if (!m.subscribed_regex || next.contains(*m.subscribed_regex)) continue;
    auto old = regexes.find(*m.subscribed_regex);
    fresh |= old == regexes.end();
    next.emplace(*m.subscribed_regex, old == regexes.end() ? ResolvedRegex{} : std::move(old->second));
  }
  regexes = std::move(next);
  const bool stale =
      std::any_of(regexes.begin(), regexes.end(), [&](const auto& r) { return r.second.version != topics_version; });
  const auto now = std::chrono::steady_clock::now();
  if (!list || !(fresh || (stale && now >= regexes_refreshed_at + min_interval))) return;
  const auto names = list();
  for (auto& [regex, r] : regexes) {
    if (!r.pattern) r.pattern = std::make_shared<const protocol::NamePattern>(regex);
    auto topics = resolve_regex(*r.pattern, names);
    if (topics != r.topics || r.timestamp_ms == 0) {
      r.topics = std::move(topics);
      r.timestamp_ms = wall_clock_ms();
    }
    r.version = topics_version;
  }
  regexes_refreshed_at = now;
}

std::set<std::string> ConsumerGroup::subscribed_names_of(const ConsumerGroupMember& m) const {
  std::set<std::string> names(m.subscribed_names.begin(), m.subscribed_names.end());
  if (m.subscribed_regex) {
    auto r = regexes.find(*m.subscribed_regex);
    if (r != regexes.end()) names.insert(r->second.topics.begin(), r->second.topics.end());
  }
  return names;
}

bool ConsumerGroup::refresh_subscribed_topics(const TopicResolver& resolve) {
  std::map<std::string, consumer::TopicMetadata> now;
  for (const auto& [id, m] : members) {
    for (const auto& name : subscribed_names_of(m)) {
      if (now.contains(name)) continue;
      if (auto t = resolve(name)) now.emplace(name, *t);
    }
  }
  // Kept even when the hash is the same: after a load the map starts empty.
  subscribed_topics = std::move(now);
  const int64_t hash = topics_metadata_hash(subscribed_topics);
  if (hash == metadata_hash) return false;
  metadata_hash = hash;
  return true;
}

std::set<Uuid> ConsumerGroup::subscribed_ids(const ConsumerGroupMember& m) const {
  std::set<Uuid> ids;
  for (const auto& name : subscribed_names_of(m)) {
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

}  // namespace skiff::group
