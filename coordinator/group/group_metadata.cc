#include "coordinator/group/group_metadata.h"

#include <algorithm>
#include <stdexcept>

namespace skiff::group {

const char* state_name(GroupState s) {
  switch (s) {
    case GroupState::kEmpty:
      return "Empty";
    case GroupState::kPreparingRebalance:
      return "PreparingRebalance";
    case GroupState::kCompletingRebalance:
      return "CompletingRebalance";
    case GroupState::kStable:
      return "Stable";
    case GroupState::kDead:
      return "Dead";
  }
  return "Unknown";
}

bool GroupMetadata::can_transition_to(GroupState target) const {
  using S = GroupState;
  switch (target) {
    case S::kDead:
      return true;
    case S::kCompletingRebalance:
      return state_ == S::kPreparingRebalance;
    case S::kStable:
      return state_ == S::kCompletingRebalance;
    case S::kPreparingRebalance:
      return state_ == S::kStable || state_ == S::kCompletingRebalance || state_ == S::kEmpty;
    case S::kEmpty:
      return state_ == S::kPreparingRebalance;
  }
  return false;
}

void GroupMetadata::transition_to(GroupState target, int64_t now_ms) {
  if (!can_transition_to(target))
    throw std::logic_error(std::string("group ") + group_id_ + ": illegal transition " + state_name(state_) + " -> " +
                           state_name(target));
  state_ = target;
  state_timestamp_ = now_ms;
}

void GroupMetadata::reset_classic(int64_t now_ms) {
  members_.clear();
  join_order_.clear();
  static_members_.clear();
  leader_id_.clear();
  pending_members.clear();
  pending_sync.clear();
  protocol_name.reset();
  initial_delay_pending = false;
  ++join_epoch;  // the classic timers armed so far find nothing to do
  ++sync_epoch;
  state_ = GroupState::kEmpty;
  state_timestamp_ = now_ms;
}

MemberMetadata* GroupMetadata::get(const std::string& member_id) {
  auto it = members_.find(member_id);
  return it == members_.end() ? nullptr : &it->second;
}

void GroupMetadata::add(MemberMetadata member) {
  if (members_.empty()) protocol_type = member.protocol_type;
  if (leader_id_.empty()) leader_id_ = member.member_id;
  if (member.group_instance_id) static_members_[*member.group_instance_id] = member.member_id;
  join_order_.push_back(member.member_id);
  members_.emplace(member.member_id, std::move(member));
}

void GroupMetadata::remove(const std::string& member_id) {
  auto it = members_.find(member_id);
  if (it == members_.end()) return;
  if (it->second.group_instance_id) {
    auto s = static_members_.find(*it->second.group_instance_id);
    if (s != static_members_.end() && s->second == member_id) static_members_.erase(s);
  }
  members_.erase(it);
  pending_sync.erase(member_id);
  join_order_.erase(std::remove(join_order_.begin(), join_order_.end(), member_id), join_order_.end());
  if (leader_id_ == member_id) leader_id_ = join_order_.empty() ? std::string() : join_order_.front();
}

std::optional<std::string> GroupMetadata::static_member_id(const std::string& instance_id) const {
  auto it = static_members_.find(instance_id);
  if (it == static_members_.end()) return std::nullopt;
  return it->second;
}

void GroupMetadata::replace_static_member(const std::string& instance_id, const std::string& old_id,
                                          const std::string& new_id) {
  auto node = members_.extract(old_id);
  if (node.empty()) return;
  node.key() = new_id;
  node.mapped().member_id = new_id;
  node.mapped().expiry_timer_armed = false;  // the old id's timer will not find it
  members_.insert(std::move(node));
  std::replace(join_order_.begin(), join_order_.end(), old_id, new_id);
  if (pending_sync.erase(old_id)) pending_sync.insert(new_id);
  if (leader_id_ == old_id) leader_id_ = new_id;
  static_members_[instance_id] = new_id;
}

size_t GroupMetadata::awaiting_join_count() const {
  return static_cast<size_t>(
      std::count_if(members_.begin(), members_.end(), [](auto& kv) { return kv.second.is_awaiting_join(); }));
}

int32_t GroupMetadata::max_rebalance_timeout_ms() const {
  int32_t t = 0;
  for (auto& [id, m] : members_) t = std::max(t, m.rebalance_timeout_ms);
  return t;
}

bool GroupMetadata::supports_protocols(const std::string& type, const std::vector<Protocol>& protocols) const {
  if (members_.empty()) return !type.empty() && !protocols.empty();
  if (!protocol_type || *protocol_type != type) return false;
  for (const auto& p : protocols) {
    bool everyone = std::all_of(members_.begin(), members_.end(),
                                [&](auto& kv) { return kv.second.metadata_for(p.name) != nullptr; });
    if (everyone) return true;
  }
  return false;
}

std::string GroupMetadata::select_protocol() const {
  if (members_.empty()) return {};
  // Candidates: supported by every member, in the first member's order.
  std::vector<std::string> candidates;
  const auto& first = members_.at(join_order_.front());
  for (const auto& p : first.protocols) {
    bool everyone = std::all_of(members_.begin(), members_.end(),
                                [&](auto& kv) { return kv.second.metadata_for(p.name) != nullptr; });
    if (everyone) candidates.push_back(p.name);
  }
  if (candidates.empty()) return {};
  std::map<std::string, int> votes;
  for (auto& [id, m] : members_) {
    for (const auto& p : m.protocols) {
      if (std::find(candidates.begin(), candidates.end(), p.name) != candidates.end()) {
        ++votes[p.name];
        break;
      }
    }
  }
  std::string best = candidates.front();
  for (const auto& c : candidates)
    if (votes[c] > votes[best]) best = c;
  return best;
}

void GroupMetadata::init_next_generation(int64_t now_ms) {
  ++generation_id;
  pending_sync.clear();
  if (!members_.empty()) {
    protocol_name = select_protocol();
    transition_to(GroupState::kCompletingRebalance, now_ms);
    for (auto& [id, m] : members_) pending_sync.insert(id);
  } else {
    protocol_name.reset();
    transition_to(GroupState::kEmpty, now_ms);
  }
}

std::vector<JoinedMember> GroupMetadata::current_member_metadata() const {
  std::vector<JoinedMember> out;
  for (const auto& id : join_order_) {
    const auto& m = members_.at(id);
    const Bytes* md = protocol_name ? m.metadata_for(*protocol_name) : nullptr;
    out.push_back({m.member_id, m.group_instance_id, md ? *md : Bytes{}});
  }
  return out;
}

}  // namespace skiff::group
