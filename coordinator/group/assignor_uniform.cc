#include "coordinator/group/assignor_uniform.h"

#include <algorithm>
#include <numeric>

namespace skiff::group::consumer {
namespace {

// The assignment being built: members in member-id order, their counts.
class Builder {
 public:
  explicit Builder(const AssignmentSpec& spec) : spec_(spec) {
    for (const auto& m : spec.members) members_.push_back(&m);
    std::sort(members_.begin(), members_.end(), [](auto* a, auto* b) { return a->member_id < b->member_id; });
    held_.resize(members_.size());
    counts_.assign(members_.size(), 0);
  }

  TargetAssignment run() {
    keep_current();
    assign_free();
    balance();
    TargetAssignment out;
    for (size_t i = 0; i < members_.size(); ++i) {
      auto& a = out[members_[i]->member_id];
      for (auto& [t, ps] : held_[i]) {
        if (!ps.empty()) a[t] = ps;
      }
    }
    return out;
  }

 private:
  bool valid(size_t i, const Uuid& t, int32_t p) const {
    auto it = spec_.topics.find(t);
    return it != spec_.topics.end() && p >= 0 && p < it->second.partitions && members_[i]->subscribed.contains(t);
  }

  void give(size_t i, const Uuid& t, int32_t p) {
    held_[i][t].insert(p);
    ++counts_[i];
  }

  // Stickiness: each member keeps what it had and may still have. A
  // partition two members claim (not possible from a consistent target) goes
  // to the first by member id.
  void keep_current() {
    for (size_t i = 0; i < members_.size(); ++i) {
      for (const auto& [t, ps] : members_[i]->current) {
        for (int32_t p : ps) {
          if (valid(i, t, p) && claimed_.insert({t, p}).second) give(i, t, p);
        }
      }
    }
  }

  std::vector<size_t> subscribers(const Uuid& t) const {
    std::vector<size_t> out;
    for (size_t i = 0; i < members_.size(); ++i) {
      if (members_[i]->subscribed.contains(t)) out.push_back(i);
    }
    return out;
  }

  // Free partitions to the subscriber holding the fewest; topics with fewer
  // subscribers first, as they have fewer places to go.
  void assign_free() {
    std::vector<std::pair<size_t, Uuid>> topics;
    for (const auto& [t, _] : spec_.topics) topics.emplace_back(subscribers(t).size(), t);
    std::sort(topics.begin(), topics.end());
    for (const auto& [n, t] : topics) {
      if (n == 0) continue;
      const auto subs = subscribers(t);
      for (int32_t p = 0; p < spec_.topics.at(t).partitions; ++p) {
        if (claimed_.contains({t, p})) continue;
        size_t best = subs.front();
        for (size_t i : subs) {
          if (counts_[i] < counts_[best]) best = i;
        }
        claimed_.insert({t, p});
        give(best, t, p);
      }
    }
  }

  // One partition from `d` to `r` of a topic both are subscribed to: the
  // highest partition of the topic `d` holds most of. False if none.
  bool move_one(size_t d, size_t r) {
    std::set<int32_t>* from = nullptr;
    Uuid topic;
    for (auto& [t, ps] : held_[d]) {
      if (!ps.empty() && members_[r]->subscribed.contains(t) && (from == nullptr || ps.size() > from->size())) {
        from = &ps;
        topic = t;
      }
    }
    if (from == nullptr) return false;
    const int32_t p = *from->rbegin();
    from->erase(p);
    --counts_[d];
    give(r, topic, p);
    return true;
  }

  // Each move takes a partition from a member holding at least two more than
  // the receiver, so the sum of squared counts falls and the loop ends.
  void balance() {
    std::vector<size_t> order(members_.size());
    for (;;) {
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return counts_[a] > counts_[b]; });
      if (!move_from_most(order)) return;
    }
  }

  bool move_from_most(const std::vector<size_t>& by_count_desc) {
    for (size_t d : by_count_desc) {
      for (auto it = by_count_desc.rbegin(); it != by_count_desc.rend(); ++it) {
        if (counts_[d] <= counts_[*it] + 1) break;
        if (move_one(d, *it)) return true;
      }
    }
    return false;
  }

  const AssignmentSpec& spec_;
  std::vector<const AssignorMember*> members_;
  std::vector<Assignment> held_;
  std::vector<size_t> counts_;
  std::set<std::pair<Uuid, int32_t>> claimed_;
};

}  // namespace

TargetAssignment UniformAssignor::assign(const AssignmentSpec& spec) const { return Builder(spec).run(); }

}  // namespace skiff::group::consumer
