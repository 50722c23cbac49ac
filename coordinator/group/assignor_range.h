// RangeAssignor ("range"): Kafka's range strategy run on the broker. For each
// topic, the members subscribed to it get contiguous
// ranges of its partitions: partitions / members each, the first
// partitions % members of them one more. Topics with the same subscribers and
// partition count are therefore co-partitioned: a member gets the same
// partition numbers of each (what a join across topics keyed alike needs).
// Members are ordered as Kafka 4.4's RangeAssignor orders them: static
// members (group.instance.id) first, by instance id, so a static member that
// restarts under a new member id keeps its ranges; then the others by member
// id.
// The price is stickiness: a member joining or leaving shifts the ranges of
// the members sorted after it.
//
// Threads: stateless, see assignor.h.
#pragma once

#include "coordinator/group/assignor.h"

namespace skiff::group::consumer {

class RangeAssignor final : public Assignor {
 public:
  std::string_view name() const override { return "range"; }
  TargetAssignment assign(const AssignmentSpec& spec) const override;
};

}  // namespace skiff::group::consumer
