// Test support for the KIP-848 consumer-protocol logic (assignors,
// reconciler): topic ids made from a small number, and partition-level
// views of assignments for the checks.
#pragma once

#include <map>
#include <utility>

#include "coordinator/group/assignor.h"

namespace skiff::test {

using namespace group::consumer;

inline Uuid topic_id(uint8_t n) {
  Uuid id;
  id.bytes[0] = 1;  // never the zero id
  id.bytes[15] = n;
  return id;
}

inline Assignment parts(const Uuid& t, std::initializer_list<int32_t> ps) {
  return Assignment{{t, std::set<int32_t>(ps)}};
}

// partition -> member, failing (returning false) if a partition is held twice.
inline bool owners_of(const TargetAssignment& a, std::map<std::pair<Uuid, int32_t>, std::string>& out) {
  out.clear();
  for (const auto& [m, as] : a) {
    for (const auto& [t, ps] : as) {
      for (int32_t p : ps) {
        if (!out.emplace(std::pair{t, p}, m).second) return false;
      }
    }
  }
  return true;
}

}  // namespace skiff::test
