#include "coordinator/group/assignor_range.h"

#include <algorithm>

namespace skiff::group::consumer {
namespace {

bool range_order(const AssignorMember* a, const AssignorMember* b) {
  if (a->instance_id && b->instance_id) return *a->instance_id < *b->instance_id;
  if (a->instance_id.has_value() != b->instance_id.has_value()) return a->instance_id.has_value();
  return a->member_id < b->member_id;
}

}  // namespace

TargetAssignment RangeAssignor::assign(const AssignmentSpec& spec) const {
  TargetAssignment out;
  for (const auto& m : spec.members) out[m.member_id];
  for (const auto& [id, topic] : spec.topics) {
    std::vector<const AssignorMember*> subscribers;
    for (const auto& m : spec.members) {
      if (m.subscribed.contains(id)) subscribers.push_back(&m);
    }
    if (subscribers.empty() || topic.partitions <= 0) continue;
    std::sort(subscribers.begin(), subscribers.end(), range_order);
    const auto n = static_cast<int32_t>(subscribers.size());
    const int32_t per = topic.partitions / n;
    const int32_t extra = topic.partitions % n;
    int32_t next = 0;
    for (int32_t k = 0; k < n; ++k) {
      const int32_t len = per + (k < extra ? 1 : 0);
      for (int32_t p = next; p < next + len; ++p) out[subscribers[k]->member_id][id].insert(p);
      next += len;
    }
  }
  return out;
}

}  // namespace skiff::group::consumer
