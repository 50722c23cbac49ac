#include "coordinator/group/assignor.h"

#include "coordinator/group/assignor_range.h"
#include "coordinator/group/assignor_uniform.h"

namespace skiff::group::consumer {

std::unique_ptr<Assignor> make_assignor(std::string_view name) {
  if (name == "uniform") return std::make_unique<UniformAssignor>();
  if (name == "range") return std::make_unique<RangeAssignor>();
  return nullptr;
}

size_t partition_count(const Assignment& a) {
  size_t n = 0;
  for (const auto& [_, ps] : a) n += ps.size();
  return n;
}

bool contains(const Assignment& a, const Uuid& topic, int32_t partition) {
  auto it = a.find(topic);
  return it != a.end() && it->second.contains(partition);
}

}  // namespace skiff::group::consumer
