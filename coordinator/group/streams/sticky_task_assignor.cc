// Kafka 4.4's StickyTaskAssignor (sticky_task_assignor.h).
#include "coordinator/group/streams/sticky_task_assignor.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <set>
#include <vector>

namespace skiff::group::streams {

namespace {

using Task = std::pair<std::string, int32_t>;  // subtopology, partition

std::string task_name(const Task& t) { return t.first + "_" + std::to_string(t.second); }

// Kafka's ProcessState: a process's members and what they were given.
class ProcessState {
 public:
  explicit ProcessState(std::string id) : id_(std::move(id)) {}
  const std::string& id() const { return id_; }
  double load() const { return load_; }
  int member_tasks(const std::string& member) const { return members_.at(member); }
  bool has_task(const Task& t) const { return tasks_.contains(t); }
  const std::map<std::string, std::set<Task>>& active() const { return active_; }
  const std::map<std::string, std::set<Task>>& standby() const { return standby_; }

  void add_member(const std::string& member) {
    members_.emplace(member, 0);
    compute_load();
  }
  // The member's task count after adding.
  int add_task(const std::string& member, const Task& t, bool active) {
    ++task_count_;
    tasks_.insert(t);
    (active ? active_ : standby_)[member].insert(t);
    const int n = ++members_.at(member);
    compute_load();
    return n;
  }
  // To the member with the fewest tasks; -1 when the process has none.
  int add_task_to_least_loaded(const Task& t, bool active) {
    if (members_.empty()) return -1;
    auto least = std::min_element(members_.begin(), members_.end(),
                                  [](const auto& a, const auto& b) { return a.second < b.second; });
    return add_task(least->first, t, active);
  }

 private:
  void compute_load() {
    load_ = members_.empty() ? -1 : static_cast<double>(task_count_) / static_cast<double>(members_.size());
  }

  std::string id_;
  double load_ = std::numeric_limits<double>::max();
  int task_count_ = 0;
  std::map<std::string, int> members_;  // member -> tasks given to it
  std::map<std::string, std::set<Task>> active_, standby_;
  std::set<Task> tasks_;
};

struct Member {
  std::string process;
  std::string id;
};

int tasks_per_member(int tasks, int members) { return members == 0 ? 0 : (tasks + members - 1) / members; }

struct LocalState {
  std::map<Task, Member> prev_active;
  std::map<Task, std::vector<Member>> prev_standby;  // best candidate first
  std::map<std::string, ProcessState> processes;
  int num_standby = 0;
  int total_active = 0, total_tasks = 0;
  int members_with_active_capacity = 0, members_with_capacity = 0;
  int active_per_member = 0, total_per_member = 0;

  ProcessState& process(const Member& m) { return processes.at(m.process); }

  void active_assigned(int count) {
    if (count != active_per_member) return;
    --members_with_active_capacity;
    total_active -= count;
    active_per_member = tasks_per_member(total_active, members_with_active_capacity);
  }
  void task_assigned(int count) {
    if (count != total_per_member) return;
    --members_with_capacity;
    total_tasks -= count;
    total_per_member = tasks_per_member(total_tasks, members_with_capacity);
  }
  bool under_active_quota(const Member& m) { return process(m).member_tasks(m.id) < active_per_member; }
  bool under_task_quota(const Member& m) { return process(m).member_tasks(m.id) < total_per_member; }
};

struct Candidate {
  Member member;
  bool prev_standby;
  int64_t offset_sum;
};

int64_t offset_sum(const AssignorMember& m, const std::string& sub, int32_t p) {
  auto s = m.task_offsets.find(sub);
  if (s == m.task_offsets.end()) return 0;
  auto it = s->second.find(p);
  return it == s->second.end() ? 0 : it->second;
}

// Current standbys rank first, then members that only report offsets for the
// task (a warm-up counts through its offsets, as in Kafka 4.4); the most
// caught-up first within each.
void collect_candidates(std::map<Task, std::vector<Candidate>>& out, const AssignorMember& m, const Member& who) {
  for (const auto& [sub, parts] : m.standby)
    for (int32_t p : parts) out[{sub, p}].push_back({who, true, offset_sum(m, sub, p)});
  for (const auto& [sub, offsets] : m.task_offsets)
    for (const auto& [p, sum] : offsets)
      if (!contains_task(m.standby, sub, p)) out[{sub, p}].push_back({who, false, sum});
}

LocalState initialize(const AssignorGroup& group, const TopologyTasks& topology) {
  LocalState s;
  s.num_standby = std::max(0, group.num_standby_replicas);
  for (const auto& [id, sub] : topology) {
    s.total_tasks += sub.tasks + (sub.stateful ? sub.tasks * s.num_standby : 0);
    s.total_active += sub.tasks;
  }
  const int members = static_cast<int>(group.members.size());
  s.members_with_active_capacity = s.members_with_capacity = members;
  s.active_per_member = tasks_per_member(s.total_active, members);
  s.total_per_member = tasks_per_member(s.total_tasks, members);
  std::map<Task, std::vector<Candidate>> candidates;
  for (const auto& [member_id, m] : group.members) {
    const Member who{m.process_id, member_id};
    s.processes.try_emplace(m.process_id, m.process_id).first->second.add_member(member_id);
    for (const auto& [sub, parts] : m.active)
      for (int32_t p : parts) s.prev_active[{sub, p}] = who;
    collect_candidates(candidates, m, who);
  }
  for (auto& [task, list] : candidates) {
    std::stable_sort(list.begin(), list.end(), [](const Candidate& a, const Candidate& b) {
      if (a.prev_standby != b.prev_standby) return a.prev_standby;
      return a.offset_sum > b.offset_sum;
    });
    for (const auto& c : list) s.prev_standby[task].push_back(c.member);
  }
  return s;
}

// Kafka's findPrevMemberWithLeastLoad: the first candidate, replaced only by
// one strictly less loaded both by process and by member; with `task`, a
// process that has the task already is skipped.
const Member* least_loaded_prev(LocalState& s, const std::vector<Member>* members, const Task* task) {
  if (!members) return nullptr;
  const Member* best = nullptr;
  double best_process = 0, best_member = 0;
  for (const auto& m : *members) {
    const ProcessState& p = s.process(m);
    if (task && p.has_task(*task)) continue;
    const double pl = p.load(), ml = p.member_tasks(m.id);
    if (!best || (pl < best_process && ml < best_member)) {
      best = &m;
      best_process = pl;
      best_member = ml;
    }
  }
  return best;
}

void give_active(LocalState& s, const Member& m, const Task& t) {
  const int n = s.process(m).add_task(m.id, t, true);
  s.active_assigned(n);
  s.task_assigned(n);
}

// Steps 1 and 2: back to the previous owner, else to a previous standby.
void assign_sticky_active(LocalState& s, std::vector<Task>& tasks) {
  std::erase_if(tasks, [&](const Task& t) {
    auto it = s.prev_active.find(t);
    if (it == s.prev_active.end() || !s.under_active_quota(it->second)) return false;
    give_active(s, it->second, t);
    return true;
  });
  std::erase_if(tasks, [&](const Task& t) {
    auto it = s.prev_standby.find(t);
    const Member* m = least_loaded_prev(s, it == s.prev_standby.end() ? nullptr : &it->second, nullptr);
    if (!m || !s.under_active_quota(*m)) return false;
    give_active(s, *m, t);
    return true;
  });
}

// The least loaded process (ties: the smaller process id).
ProcessState* least_loaded_process(LocalState& s, const std::set<std::string>& skip = {}) {
  ProcessState* best = nullptr;
  for (auto& [id, p] : s.processes)
    if (!skip.contains(id) && (!best || p.load() < best->load())) best = &p;
  return best;
}

void assign_active(LocalState& s, std::vector<Task> tasks) {
  std::sort(tasks.begin(), tasks.end(),
            [](const Task& a, const Task& b) { return std::tie(a.second, a.first) < std::tie(b.second, b.first); });
  assign_sticky_active(s, tasks);
  std::sort(tasks.begin(), tasks.end());
  for (const auto& t : tasks) {
    ProcessState* p = least_loaded_process(s);
    if (!p) throw TaskAssignorError(fmt::format("No process available to assign active task {}.", task_name(t)));
    const int n = p->add_task_to_least_loaded(t, true);
    if (n == -1) throw TaskAssignorError(fmt::format("No member available to assign active task {}.", task_name(t)));
    s.active_assigned(n);
    s.task_assigned(n);
  }
}

// One standby replica to a previous holder; false when none can take it.
bool assign_sticky_standby(LocalState& s, const Task& t) {
  if (auto it = s.prev_active.find(t); it != s.prev_active.end()) {
    const Member& m = it->second;
    if (!s.process(m).has_task(t) && s.under_task_quota(m)) {
      s.task_assigned(s.process(m).add_task(m.id, t, false));
      return true;
    }
  }
  auto it = s.prev_standby.find(t);
  const Member* m = least_loaded_prev(s, it == s.prev_standby.end() ? nullptr : &it->second, &t);
  if (!m || !s.under_task_quota(*m)) return false;
  s.task_assigned(s.process(*m).add_task(m->id, t, false));
  return true;
}

// Kafka's assignStandbyToMemberWithLeastLoad: the least loaded process
// without the task.
bool assign_standby_to_least_loaded(LocalState& s, const Task& t) {
  std::set<std::string> skip;
  while (ProcessState* p = least_loaded_process(s, skip)) {
    if (!p->has_task(t)) {
      const int n = p->add_task_to_least_loaded(t, false);
      if (n == -1) return false;
      s.task_assigned(n);
      return true;
    }
    skip.insert(p->id());
  }
  return false;
}

void assign_standby(LocalState& s, std::vector<Task> tasks) {
  std::sort(tasks.begin(), tasks.end(),
            [](const Task& a, const Task& b) { return std::tie(a.second, a.first) > std::tie(b.second, b.first); });
  std::vector<std::pair<Task, int>> remaining;  // task, replicas still to place
  for (const auto& t : tasks)
    for (int i = 0; i < s.num_standby; ++i)
      if (!assign_sticky_standby(s, t)) {
        remaining.emplace_back(t, s.num_standby - i);
        break;
      }
  std::sort(remaining.begin(), remaining.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (const auto& [t, replicas] : remaining)
    for (int i = 0; i < replicas; ++i)
      if (!assign_standby_to_least_loaded(s, t)) break;  // not enough capacity: fewer replicas, as Kafka
}

std::vector<Task> tasks_of(const TopologyTasks& topology, bool stateful_only) {
  std::vector<Task> out;
  for (const auto& [id, sub] : topology)
    if (!stateful_only || sub.stateful)
      for (int32_t p = 0; p < sub.tasks; ++p) out.emplace_back(id, p);
  return out;
}

}  // namespace

TopologyTasks topology_tasks(const std::map<std::string, ConfiguredSubtopology>& subtopologies) {
  TopologyTasks out;
  for (const auto& [id, sub] : subtopologies)
    out[id] = SubtopologyTasks{sub.number_of_tasks, !sub.state_changelog_topics.empty()};
  return out;
}

GroupAssignment sticky_assign(const AssignorGroup& group, const TopologyTasks& topology) {
  LocalState s = initialize(group, topology);
  assign_active(s, tasks_of(topology, false));
  if (s.num_standby > 0) assign_standby(s, tasks_of(topology, true));
  GroupAssignment out;
  for (const auto& [member_id, m] : group.members) out[member_id];
  for (const auto& [id, p] : s.processes) {
    for (const auto& [member, tasks] : p.active())
      for (const auto& [sub, part] : tasks) add_task(out[member].active, sub, part);
    for (const auto& [member, tasks] : p.standby())
      for (const auto& [sub, part] : tasks) add_task(out[member].standby, sub, part);
  }
  return out;
}

}  // namespace skiff::group::streams
