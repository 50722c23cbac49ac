#include "coordinator/group/streams/streams_tasks.h"

namespace skiff::group::streams {

bool contains_task(const TaskSet& tasks, const std::string& subtopology, int32_t partition) {
  auto it = tasks.find(subtopology);
  return it != tasks.end() && it->second.contains(partition);
}

void add_task(TaskSet& tasks, const std::string& subtopology, int32_t partition) {
  tasks[subtopology].insert(partition);
}

void remove_task(TaskSet& tasks, const std::string& subtopology, int32_t partition) {
  auto it = tasks.find(subtopology);
  if (it == tasks.end()) return;
  it->second.erase(partition);
  if (it->second.empty()) tasks.erase(it);
}

TaskSet task_set(const TaskEpochs& epochs) {
  TaskSet out;
  for (const auto& [sub, parts] : epochs)
    for (const auto& [p, e] : parts) out[sub].insert(p);
  return out;
}

TaskEpochs merge(const TaskEpochs& a, const TaskEpochs& b) {
  TaskEpochs out = a;
  for (const auto& [sub, parts] : b)
    for (const auto& [p, e] : parts) out[sub].emplace(p, e);
  return out;
}

TaskSet merge(const TaskSet& a, const TaskSet& b) {
  TaskSet out = a;
  for (const auto& [sub, parts] : b) out[sub].insert(parts.begin(), parts.end());
  return out;
}

size_t task_count(const TaskSet& tasks) {
  size_t n = 0;
  for (const auto& [sub, parts] : tasks) n += parts.size();
  return n;
}

TasksWithEpochs merge(const TasksWithEpochs& a, const TasksWithEpochs& b) {
  return TasksWithEpochs{merge(a.active, b.active), merge(a.standby, b.standby), merge(a.warmup, b.warmup)};
}

namespace {

bool intersects(const TaskSet& owned, const TaskSet& tasks) {
  for (const auto& [sub, parts] : tasks)
    for (int32_t p : parts)
      if (contains_task(owned, sub, p)) return true;
  return false;
}

}  // namespace

bool contains_any(const TasksTuple& owned, const TasksWithEpochs& tasks) {
  return intersects(owned.active, task_set(tasks.active)) || intersects(owned.standby, tasks.standby) ||
         intersects(owned.warmup, tasks.warmup);
}

bool same_tasks(const TasksTuple& tuple, const TasksWithEpochs& tasks) {
  return tuple.active == task_set(tasks.active) && tuple.standby == tasks.standby && tuple.warmup == tasks.warmup;
}

}  // namespace skiff::group::streams
