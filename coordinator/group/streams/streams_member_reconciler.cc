// Kafka 4.4's streams CurrentAssignmentBuilder (streams_member_reconciler.h).
#include "coordinator/group/streams/streams_member_reconciler.h"

#include <functional>

namespace skiff::group::streams {

const char* member_state_name(MemberState s) {
  switch (s) {
    case MemberState::kStable:
      return "STABLE";
    case MemberState::kUnrevokedTasks:
      return "UNREVOKED_TASKS";
    case MemberState::kUnreleasedTasks:
      return "UNRELEASED_TASKS";
    case MemberState::kUnknown:
      return "UNKNOWN";
  }
  return "UNKNOWN";
}

MemberState member_state_from(int8_t value) {
  switch (value) {
    case 0:
      return MemberState::kStable;
    case 1:
      return MemberState::kUnrevokedTasks;
    case 2:
      return MemberState::kUnreleasedTasks;
    default:
      return MemberState::kUnknown;
  }
}

// ---- TaskOwnership

namespace {

std::set<std::string> holders(const std::map<std::pair<std::string, int32_t>, std::map<std::string, int>>& m,
                              const std::string& sub, int32_t p) {
  std::set<std::string> out;
  auto it = m.find({sub, p});
  if (it != m.end())
    for (const auto& [process, n] : it->second) out.insert(process);
  return out;
}

}  // namespace

std::optional<std::string> TaskOwnership::active_process(const std::string& subtopology, int32_t partition) const {
  auto s = holders(active_, subtopology, partition);
  return s.empty() ? std::nullopt : std::optional<std::string>(*s.begin());
}

std::set<std::string> TaskOwnership::standby_processes(const std::string& subtopology, int32_t partition) const {
  return holders(standby_, subtopology, partition);
}

std::set<std::string> TaskOwnership::warmup_processes(const std::string& subtopology, int32_t partition) const {
  return holders(warmup_, subtopology, partition);
}

void TaskOwnership::apply(const MemberAssignmentState& m, int delta) {
  auto add = [&](auto& index, const std::string& sub, int32_t p) {
    auto& per_process = index[{sub, p}];
    if ((per_process[m.process_id] += delta) <= 0) per_process.erase(m.process_id);
    if (per_process.empty()) index.erase({sub, p});
  };
  for (const TasksWithEpochs* t : {&m.assigned, &m.pending_revocation}) {
    for (const auto& [sub, parts] : t->active)
      for (const auto& [p, epoch] : parts) add(active_, sub, p);
    for (const auto& [sub, parts] : t->standby)
      for (int32_t p : parts) add(standby_, sub, p);
    for (const auto& [sub, parts] : t->warmup)
      for (int32_t p : parts) add(warmup_, sub, p);
  }
}

void TaskOwnership::update(const MemberAssignmentState& before, const MemberAssignmentState& after) {
  apply(before, -1);
  apply(after, +1);
}

void TaskOwnership::remove(const MemberAssignmentState& member) { apply(member, -1); }

// ---- reconcile

namespace {

using Unreleased = std::function<bool(const std::string&, int32_t)>;

struct Diff {
  TaskSet assigned, revoke, pending;
  bool unreleased = false;
};

struct EpochDiff {
  TaskEpochs assigned, revoke, pending;
  bool unreleased = false;
};

// assigned = current ∩ target; revoke = current - target; pending = target -
// current - what is not released yet.
Diff diff(const TaskSet& current, const TaskSet& target, const Unreleased& unreleased) {
  Diff d;
  for (const auto& [sub, parts] : current)
    for (int32_t p : parts) add_task(contains_task(target, sub, p) ? d.assigned : d.revoke, sub, p);
  for (const auto& [sub, parts] : target)
    for (int32_t p : parts) {
      if (contains_task(current, sub, p)) continue;
      if (unreleased(sub, p))
        d.unreleased = true;
      else
        add_task(d.pending, sub, p);
    }
  return d;
}

// As diff, keeping the epochs held tasks have; new ones get `epoch`.
EpochDiff diff(const TaskEpochs& current, const TaskSet& target, int32_t epoch, const Unreleased& unreleased) {
  EpochDiff d;
  for (const auto& [sub, parts] : current)
    for (const auto& [p, e] : parts) (contains_task(target, sub, p) ? d.assigned : d.revoke)[sub][p] = e;
  for (const auto& [sub, parts] : target)
    for (int32_t p : parts) {
      auto c = current.find(sub);
      if (c != current.end() && c->second.contains(p)) continue;
      if (unreleased(sub, p))
        d.unreleased = true;
      else
        d.pending[sub][p] = epoch;
    }
  return d;
}

bool pending_has(const TaskSet& pending, const std::string& sub, int32_t p) { return contains_task(pending, sub, p); }

void grant_now(TaskSet& pending, TaskSet& assigned, const std::string& sub, int32_t p) {
  remove_task(pending, sub, p);
  add_task(assigned, sub, p);
}

class Builder {
 public:
  Builder(const MemberAssignmentState& m, const ReconcileInput& in) : m_(m), in_(in) {}

  // Whether the member has not confirmed giving up `tasks` (no owned tasks
  // reported proves nothing).
  bool not_released(const TasksWithEpochs& tasks) const { return !in_.owned || contains_any(*in_.owned, tasks); }

  MemberAssignmentState next(int32_t epoch, const TasksWithEpochs& cur) const;

 private:
  bool held_by_other_here(const std::set<std::string>& processes, const TaskSet& mine, const std::string& sub,
                          int32_t p) const {
    return processes.contains(m_.process_id) && !contains_task(mine, sub, p);
  }
  bool unreleased_active(const TasksWithEpochs& cur, const std::string& sub, int32_t p) const {
    const auto& o = *in_.owners;
    return o.active_process(sub, p).has_value() ||
           held_by_other_here(o.standby_processes(sub, p), cur.standby, sub, p) ||
           held_by_other_here(o.warmup_processes(sub, p), cur.warmup, sub, p);
  }
  bool unreleased_standby(const TasksWithEpochs& cur, const std::string& sub, int32_t p) const {
    const auto& o = *in_.owners;
    const auto a = cur.active.find(sub);
    const bool mine = a != cur.active.end() && a->second.contains(p);
    return (o.active_process(sub, p) == m_.process_id && !mine) ||
           o.standby_processes(sub, p).contains(m_.process_id) ||
           held_by_other_here(o.warmup_processes(sub, p), cur.warmup, sub, p);
  }
  bool unreleased_warmup(const TasksWithEpochs& cur, const std::string& sub, int32_t p) const {
    const auto& o = *in_.owners;
    return o.active_process(sub, p) == m_.process_id ||
           held_by_other_here(o.standby_processes(sub, p), cur.standby, sub, p) ||
           o.warmup_processes(sub, p).contains(m_.process_id);
  }
  void keep_promoted(const TaskSet& mine, TaskSet& assigned, const TaskEpochs& active_pending, bool revoking) const;
  MemberAssignmentState build(int32_t epoch, TasksWithEpochs revoke, TasksWithEpochs assigned,
                              const TasksWithEpochs& pending, bool unreleased) const;

  const MemberAssignmentState& m_;
  const ReconcileInput& in_;
};

// A standby or warm-up promoted to active stays until the active task is
// granted in this step.
void Builder::keep_promoted(const TaskSet& mine, TaskSet& assigned, const TaskEpochs& active_pending,
                            bool revoking) const {
  for (const auto& [sub, parts] : mine)
    for (int32_t p : parts) {
      const auto g = active_pending.find(sub);
      const bool granted = !revoking && g != active_pending.end() && g->second.contains(p);
      if (contains_task(in_.target->active, sub, p) && !granted) add_task(assigned, sub, p);
    }
}

MemberAssignmentState Builder::next(int32_t epoch, const TasksWithEpochs& cur) const {
  const auto& target = *in_.target;
  auto active = diff(cur.active, target.active, in_.target_epoch,
                     [&](const std::string& s, int32_t p) { return unreleased_active(cur, s, p); });
  auto standby =
      diff(cur.standby, target.standby, [&](const std::string& s, int32_t p) { return unreleased_standby(cur, s, p); });
  auto warmup =
      diff(cur.warmup, target.warmup, [&](const std::string& s, int32_t p) { return unreleased_warmup(cur, s, p); });
  // In-place role changes: demotion to standby, standby <-> warm-up.
  for (const auto& [sub, parts] : cur.active)
    for (const auto& [p, e] : parts)
      if (pending_has(standby.pending, sub, p)) grant_now(standby.pending, standby.assigned, sub, p);
  for (const auto& [sub, parts] : cur.standby)
    for (int32_t p : parts)
      if (pending_has(warmup.pending, sub, p)) {
        grant_now(warmup.pending, warmup.assigned, sub, p);
        remove_task(standby.revoke, sub, p);
      }
  for (const auto& [sub, parts] : cur.warmup)
    for (int32_t p : parts)
      if (pending_has(standby.pending, sub, p)) {
        grant_now(standby.pending, standby.assigned, sub, p);
        remove_task(warmup.revoke, sub, p);
      }
  // Promotions to active need no revocation of the standby or warm-up.
  auto drop_promoted = [&](const TaskSet& mine, TaskSet& revoke) {
    for (const auto& [sub, parts] : mine)
      for (int32_t p : parts)
        if (contains_task(target.active, sub, p)) remove_task(revoke, sub, p);
  };
  drop_promoted(cur.standby, standby.revoke);
  drop_promoted(cur.warmup, warmup.revoke);
  TasksWithEpochs revoke{active.revoke, standby.revoke, warmup.revoke};
  const bool revoking = !revoke.empty() && not_released(revoke);
  keep_promoted(cur.standby, standby.assigned, active.pending, revoking);
  keep_promoted(cur.warmup, warmup.assigned, active.pending, revoking);
  return build(epoch, std::move(revoke), {active.assigned, standby.assigned, warmup.assigned},
               {active.pending, standby.pending, warmup.pending},
               active.unreleased || standby.unreleased || warmup.unreleased);
}

MemberAssignmentState Builder::build(int32_t epoch, TasksWithEpochs revoke, TasksWithEpochs assigned,
                                     const TasksWithEpochs& pending, bool unreleased) const {
  MemberAssignmentState out = m_;
  auto move_epoch = [&](int32_t e) {
    if (e != out.member_epoch) out.previous_member_epoch = out.member_epoch;
    out.member_epoch = e;
  };
  if (!revoke.empty() && not_released(revoke)) {
    out.state = MemberState::kUnrevokedTasks;
    move_epoch(epoch);
    out.assigned = std::move(assigned);
    out.pending_revocation = std::move(revoke);
    return out;
  }
  out.state = unreleased ? MemberState::kUnreleasedTasks : MemberState::kStable;
  move_epoch(in_.target_epoch);
  out.assigned = merge(assigned, pending);
  out.pending_revocation = {};
  return out;
}

}  // namespace

ReconcileResult reconcile(const MemberAssignmentState& member, const ReconcileInput& in) {
  const Builder b(member, in);
  switch (member.state) {
    case MemberState::kStable:
      if (member.member_epoch == in.target_epoch) return {member, std::nullopt};
      return {b.next(member.member_epoch, member.assigned), std::nullopt};
    case MemberState::kUnrevokedTasks:
      if (b.not_released(member.pending_revocation)) return {member, std::nullopt};
      return {b.next(member.member_epoch + 1, member.assigned), std::nullopt};
    case MemberState::kUnreleasedTasks:
      return {b.next(member.member_epoch, member.assigned), std::nullopt};
    case MemberState::kUnknown:
      break;
  }
  if (!in.owned || !in.owned->empty())
    return {member,
            "The streams group member is in a unknown state. The member must abandon all its tasks and rejoin."};
  return {b.next(in.target_epoch, member.assigned), std::nullopt};
}

}  // namespace skiff::group::streams
