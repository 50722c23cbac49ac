// The task vocabulary of KIP-1071 streams groups (Kafka's TasksTuple and
// TasksTupleWithEpochs): a task is a (subtopology id, partition) pair; a
// member holds tasks in three roles, active, standby and warm-up. Active
// tasks carry the target-assignment epoch at which the member got them
// (Kafka 4.4's assignment epochs, persisted as AssignmentEpochs in
// StreamsGroupCurrentMemberAssignmentValue), so OffsetCommit can accept an
// older member epoch for a task held since then.
//
// Threads: plain values.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>

namespace skiff::group::streams {

// subtopology id -> partitions (task ids within the subtopology).
using TaskSet = std::map<std::string, std::set<int32_t>>;
// subtopology id -> partition -> the epoch at which it was assigned.
using TaskEpochs = std::map<std::string, std::map<int32_t, int32_t>>;

bool contains_task(const TaskSet& tasks, const std::string& subtopology, int32_t partition);
void add_task(TaskSet& tasks, const std::string& subtopology, int32_t partition);
// Removes one task, dropping the subtopology when it becomes empty.
void remove_task(TaskSet& tasks, const std::string& subtopology, int32_t partition);
// The tasks of `epochs`, without their epochs.
TaskSet task_set(const TaskEpochs& epochs);
// Every task of `a` and `b` (a task in both keeps `a`'s epoch).
TaskEpochs merge(const TaskEpochs& a, const TaskEpochs& b);
TaskSet merge(const TaskSet& a, const TaskSet& b);
size_t task_count(const TaskSet& tasks);

// A target assignment, or what a member reports it owns (Kafka's TasksTuple).
struct TasksTuple {
  TaskSet active;
  TaskSet standby;
  TaskSet warmup;
  bool empty() const { return active.empty() && standby.empty() && warmup.empty(); }
  bool operator==(const TasksTuple&) const = default;
};

// A member's current assignment (Kafka's TasksTupleWithEpochs).
struct TasksWithEpochs {
  TaskEpochs active;
  TaskSet standby;
  TaskSet warmup;
  bool empty() const { return active.empty() && standby.empty() && warmup.empty(); }
  bool operator==(const TasksWithEpochs&) const = default;
};

TasksWithEpochs merge(const TasksWithEpochs& a, const TasksWithEpochs& b);
// Whether `owned` still holds one of `tasks` in the same role.
bool contains_any(const TasksTuple& owned, const TasksWithEpochs& tasks);
// The same tasks in the same roles, epochs aside.
bool same_tasks(const TasksTuple& tuple, const TasksWithEpochs& tasks);

}  // namespace skiff::group::streams
