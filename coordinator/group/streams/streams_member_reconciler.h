// The reconciliation of one streams-group member (Kafka 4.4's streams
// CurrentAssignmentBuilder): moves the member's current assignment towards
// its target, one heartbeat at a time, so that
//   - an active task is given only once no member of the group runs it any
//     more (its previous owner revoked it, confirmed by a heartbeat whose
//     owned tasks no longer list it);
//   - a standby or warm-up task is given only once no other member of the
//     same process holds it in any role (other processes do not block);
//   - a process never holds one task twice.
// In-place role changes of the member's own task need no revocation: an
// active task demoted to standby is granted as standby at once (the active
// task stays pending revocation); a standby becomes a warm-up and back at
// once; a standby or warm-up promoted to active is kept until the active
// task is granted, then superseded in the same step.
//
// States (persisted as StreamsGroupCurrentMemberAssignmentValue.State):
//   STABLE            at its target epoch; reconciled when the target moves;
//   UNREVOKED_TASKS   keeps its epoch until its owned tasks no longer contain
//                     any task pending revocation (a heartbeat without owned
//                     tasks proves nothing);
//   UNRELEASED_TASKS  at the target epoch, waiting for tasks other members
//                     still hold;
//   UNKNOWN           a state from a newer broker: fenced unless it reports
//                     owning nothing, then reconciled from scratch.
// Epochs: the member epoch moves to the target epoch once nothing is left to
// revoke; each move keeps the epoch it leaves as the previous epoch. Active
// tasks carry the target epoch at which the member got them.
//
// Threads: plain values and pure functions; the coordinator keeps them under
// the group's lock.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "coordinator/group/streams/streams_tasks.h"

namespace skiff::group::streams {

enum class MemberState : int8_t {
  kStable = 0,
  kUnrevokedTasks = 1,
  kUnreleasedTasks = 2,
  kUnknown = 127,
};
const char* member_state_name(MemberState s);
// A persisted state byte; values this broker does not know are kUnknown.
MemberState member_state_from(int8_t value);

struct MemberAssignmentState {
  std::string process_id;
  MemberState state = MemberState::kStable;
  int32_t member_epoch = 0;
  int32_t previous_member_epoch = -1;
  TasksWithEpochs assigned;            // what the member is told it holds
  TasksWithEpochs pending_revocation;  // what it holds and must give up
  bool operator==(const MemberAssignmentState&) const = default;
};

// Who holds which task now, over the whole group (Kafka's StreamsGroup
// currentActiveTaskToProcessId / currentStandbyTaskToProcessIds /
// currentWarmupTaskToProcessIds): every member's assigned tasks and tasks
// pending revocation.
class TaskOwnership {
 public:
  // The process running the active task; nothing when no member does.
  std::optional<std::string> active_process(const std::string& subtopology, int32_t partition) const;
  std::set<std::string> standby_processes(const std::string& subtopology, int32_t partition) const;
  std::set<std::string> warmup_processes(const std::string& subtopology, int32_t partition) const;
  // Replaces a member's entries (`before`, possibly default for a new
  // member) by `after`'s.
  void update(const MemberAssignmentState& before, const MemberAssignmentState& after);
  // Frees a member's tasks (it left or was fenced).
  void remove(const MemberAssignmentState& member);
  bool empty() const { return active_.empty() && standby_.empty() && warmup_.empty(); }

 private:
  using Key = std::pair<std::string, int32_t>;
  void apply(const MemberAssignmentState& m, int delta);
  std::map<Key, std::map<std::string, int>> active_, standby_, warmup_;  // task -> process -> holders
};

struct ReconcileInput {
  int32_t target_epoch = 0;
  const TasksTuple* target = nullptr;  // the member's target assignment at target_epoch
  const TasksTuple* owned = nullptr;   // from the heartbeat; nullptr: not sent
  const TaskOwnership* owners = nullptr;
};

struct ReconcileResult {
  MemberAssignmentState member;
  std::optional<std::string> fenced;  // FENCED_MEMBER_EPOCH with Kafka's message
};

// The member's next state (unchanged when it cannot progress yet).
ReconcileResult reconcile(const MemberAssignmentState& member, const ReconcileInput& in);

}  // namespace skiff::group::streams
