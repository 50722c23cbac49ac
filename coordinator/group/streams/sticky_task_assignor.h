// The streams groups' task assignor, Kafka 4.4's StickyTaskAssignor
// ("sticky", the default of group.streams.assignors): from the members'
// processes, their current target assignments and the task offsets they
// report, and the topology's tasks, the next target assignment of every
// member. In Kafka's order:
//   active tasks   1. back to the member that ran the task before, while it
//                     is under its quota (ceil(tasks / members), shrinking as
//                     members fill up);
//                  2. else to a member that held it as a standby (most
//                     caught-up first: current standbys before members that
//                     only report offsets for it, a warm-up among them;
//                     larger offset sums first), while under quota;
//                  3. the rest, in subtopology order, to the least loaded
//                     process (tasks per member), there to its least loaded
//                     member;
//   standby tasks  num.standby.replicas replicas of each stateful task, never
//                  on a process that has the task already: the previous
//                  active owner, then previous standbys, then the least
//                  loaded processes; when no process can take one the
//                  replica is left out (Kafka logs a warning).
// Loads are per process: tasks / members of the process, so a process with
// more stream threads takes more tasks. Kafka 4.4's sticky assignor assigns
// no warm-up tasks and uses no rack or client tags. Ties Kafka leaves to hash
// order are broken here by process and member id, so the result is
// deterministic.
//
// Threads: a pure function.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

#include "coordinator/group/streams/streams_tasks.h"
#include "coordinator/group/streams/topic_configuration.h"

namespace skiff::group::streams {

// What the assignor knows of a member (Kafka's MemberAssignmentMetadata and
// MemberAssignmentState).
struct AssignorMember {
  std::string process_id;
  TaskSet active;  // its current target assignment
  TaskSet standby;
  TaskSet warmup;  // carried; Kafka 4.4's sticky assignor reads only its offsets
  // subtopology -> partition -> the offset sum of the task's local state, as
  // the member reports it (a restarted member's state on disk).
  std::map<std::string, std::map<int32_t, int64_t>> task_offsets;
};

struct AssignorGroup {
  std::map<std::string, AssignorMember> members;  // by member id
  int32_t num_standby_replicas = 0;
};

// Kafka's TopologyDescriber: the tasks of each subtopology (its most
// partitioned input) and whether it has state (only those get standbys).
struct SubtopologyTasks {
  int32_t tasks = 0;
  bool stateful = false;
};
using TopologyTasks = std::map<std::string, SubtopologyTasks>;

// Kafka's TopologyMetadata over a configured topology: a subtopology's tasks
// are its number_of_tasks; it is stateful when it has changelog topics.
TopologyTasks topology_tasks(const std::map<std::string, ConfiguredSubtopology>& subtopologies);

// member id -> its new target assignment (active and standby; every member
// of the group appears, possibly empty).
using GroupAssignment = std::map<std::string, TasksTuple>;

struct TaskAssignorError : std::runtime_error {  // Kafka's TaskAssignorException
  using std::runtime_error::runtime_error;
};

GroupAssignment sticky_assign(const AssignorGroup& group, const TopologyTasks& topology);

}  // namespace skiff::group::streams
