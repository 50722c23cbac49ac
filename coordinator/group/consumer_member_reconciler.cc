#include "coordinator/group/consumer_member_reconciler.h"

#include <fmt/format.h>

namespace skiff::group::consumer {
namespace {

bool owns_any_of(const Assignment* owned, const Assignment& revoking) {
  if (owned == nullptr) return true;  // not reported: not acknowledged yet
  for (const auto& [t, ps] : *owned) {
    for (int32_t p : ps) {
      if (contains(revoking, t, p)) return true;
    }
  }
  return false;
}

bool within(const Assignment& small, const Assignment& big) {
  for (const auto& [t, ps] : small) {
    for (int32_t p : ps) {
      if (!contains(big, t, p)) return false;
    }
  }
  return true;
}

MemberAssignmentState with_epoch(const MemberAssignmentState& m, MemberState state, int32_t epoch) {
  MemberAssignmentState out = m;
  out.state = state;
  if (epoch != m.member_epoch) {  // Kafka shifts it even when unchanged; then a lost response fences
    out.previous_member_epoch = m.member_epoch;
    out.member_epoch = epoch;
  }
  return out;
}

struct NextSets {
  Assignment assigned, revoking, to_assign;
  bool unreleased = false;
};

// Per topic: keep assigned ∩ target, revoke the rest, and take the target
// partitions nobody else owns (a partition this member is itself revoking
// counts as free for it).
NextSets split(const MemberAssignmentState& m, const ReconcileInput& in) {
  std::set<Uuid> topics;
  for (const auto& [t, _] : *in.target) topics.insert(t);
  for (const auto& [t, _] : m.assigned) topics.insert(t);
  NextSets n;
  static const std::set<int32_t> kNone;
  for (const Uuid& t : topics) {
    auto ti = in.target->find(t);
    const auto& target = (ti == in.target->end() || !in.subscribed->contains(t)) ? kNone : ti->second;
    auto ai = m.assigned.find(t);
    const auto& current = ai == m.assigned.end() ? kNone : ai->second;
    for (int32_t p : current) (target.contains(p) ? n.assigned : n.revoking)[t].insert(p);
    for (int32_t p : target) {
      if (current.contains(p)) continue;
      if (in.owners->epoch(t, p) != -1 && !contains(m.pending_revocation, t, p)) {
        n.unreleased = true;
      } else {
        n.to_assign[t].insert(p);
      }
    }
  }
  return n;
}

// Kafka's CurrentAssignmentBuilder: a partition the member keeps (assigned
// or now pending revocation) keeps its assignment epoch; a new one gets
// `new_epoch`, the target epoch it is given at.
void stamp_assignment_epochs(const MemberAssignmentState& before, MemberAssignmentState& out, int32_t new_epoch) {
  std::map<Uuid, std::map<int32_t, int32_t>> epochs;
  for (const Assignment* a : {&out.assigned, &out.pending_revocation}) {
    for (const auto& [t, ps] : *a) {
      for (int32_t p : ps) epochs[t][p] = assignment_epoch(before, t, p).value_or(new_epoch);
    }
  }
  out.assignment_epochs = std::move(epochs);
}

MemberAssignmentState compute_next(const MemberAssignmentState& m, int32_t epoch, const ReconcileInput& in) {
  NextSets n = split(m, in);
  if (!n.revoking.empty() && owns_any_of(in.owned, n.revoking)) {
    auto out = with_epoch(m, MemberState::kUnrevokedPartitions, epoch);
    out.assigned = std::move(n.assigned);
    out.pending_revocation = std::move(n.revoking);
    stamp_assignment_epochs(m, out, in.target_epoch);
    return out;
  }
  for (auto& [t, ps] : n.to_assign) n.assigned[t].insert(ps.begin(), ps.end());
  auto out = with_epoch(m, n.unreleased ? MemberState::kUnreleasedPartitions : MemberState::kStable, in.target_epoch);
  out.assigned = std::move(n.assigned);
  out.pending_revocation.clear();
  stamp_assignment_epochs(m, out, in.target_epoch);
  return out;
}

}  // namespace

const char* member_state_name(MemberState s) {
  switch (s) {
    case MemberState::kStable:
      return "STABLE";
    case MemberState::kUnrevokedPartitions:
      return "UNREVOKED_PARTITIONS";
    case MemberState::kUnreleasedPartitions:
      return "UNRELEASED_PARTITIONS";
    case MemberState::kUnknown:
      break;
  }
  return "UNKNOWN";
}

ReconcileResult reconcile(const MemberAssignmentState& m, const ReconcileInput& in) {
  switch (m.state) {
    case MemberState::kStable:
      if (m.member_epoch == in.target_epoch) return {m, std::nullopt};
      return {compute_next(m, m.member_epoch, in), std::nullopt};
    case MemberState::kUnrevokedPartitions:
      if (owns_any_of(in.owned, m.pending_revocation)) return {m, std::nullopt};
      return {compute_next(m, m.member_epoch, in), std::nullopt};
    case MemberState::kUnreleasedPartitions:
      return {compute_next(m, m.member_epoch, in), std::nullopt};
    case MemberState::kUnknown:
      break;
  }
  if (in.owned == nullptr || !in.owned->empty()) {
    return {m,
            "The consumer group member is in a unknown state. The member must abandon all its partitions and rejoin."};
  }
  return {compute_next(m, in.target_epoch, in), std::nullopt};
}

std::optional<std::string> check_member_epoch(const MemberAssignmentState& m, int32_t received,
                                              const Assignment* owned) {
  if (received > m.member_epoch) {
    return fmt::format(
        "The consumer group member has a greater member epoch ({}) than the one known by the group coordinator ({}). "
        "The member must abandon all its partitions and rejoin.",
        received, m.member_epoch);
  }
  if (received < m.member_epoch &&
      (received != m.previous_member_epoch || owned == nullptr || !within(*owned, m.assigned))) {
    return fmt::format(
        "The consumer group member has a smaller member epoch ({}) than the one known by the group coordinator ({}). "
        "The member must abandon all its partitions and rejoin.",
        received, m.member_epoch);
  }
  return std::nullopt;
}

std::optional<int32_t> assignment_epoch(const MemberAssignmentState& m, const Uuid& topic, int32_t partition) {
  if (!contains(m.assigned, topic, partition) && !contains(m.pending_revocation, topic, partition)) return std::nullopt;
  if (auto t = m.assignment_epochs.find(topic); t != m.assignment_epochs.end()) {
    if (auto p = t->second.find(partition); p != t->second.end()) return p->second;
  }
  return m.member_epoch;
}

int32_t PartitionOwnership::epoch(const Uuid& topic, int32_t partition) const {
  auto t = epochs_.find(topic);
  if (t == epochs_.end()) return -1;
  auto p = t->second.find(partition);
  return p == t->second.end() ? -1 : p->second;
}

bool PartitionOwnership::update(const MemberAssignmentState& before, const MemberAssignmentState& after) {
  auto mine = [&](const Uuid& t, int32_t p) {
    return contains(before.assigned, t, p) || contains(before.pending_revocation, t, p);
  };
  for (const Assignment* a : {&after.assigned, &after.pending_revocation}) {
    for (const auto& [t, ps] : *a) {
      for (int32_t p : ps) {
        if (epoch(t, p) != -1 && !mine(t, p)) return false;
      }
    }
  }
  remove(before);
  for (const Assignment* a : {&after.assigned, &after.pending_revocation}) {
    for (const auto& [t, ps] : *a) {
      for (int32_t p : ps) epochs_[t][p] = after.member_epoch;
    }
  }
  return true;
}

void PartitionOwnership::remove(const MemberAssignmentState& member) {
  for (const Assignment* a : {&member.assigned, &member.pending_revocation}) {
    for (const auto& [t, ps] : *a) {
      auto ti = epochs_.find(t);
      if (ti == epochs_.end()) continue;
      for (int32_t p : ps) ti->second.erase(p);
      if (ti->second.empty()) epochs_.erase(ti);
    }
  }
}

}  // namespace skiff::group::consumer
