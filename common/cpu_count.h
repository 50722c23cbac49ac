// usable_cpus(): the CPUs this process may run on (its affinity mask, which
// taskset and a container's cpuset narrow), at least 1. Sizes the default
// thread pools (config_def.cc). Thread-safe.
#pragma once

#include <sched.h>

#include <thread>

namespace skiff {

inline int usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  const unsigned n = std::thread::hardware_concurrency();
  return n > 0 ? static_cast<int>(n) : 1;
}

}  // namespace skiff
