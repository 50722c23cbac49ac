// UniformAssignor ("uniform", the default of group.consumer.assignors): the
// consumer protocol's balanced and sticky assignor.
//
//   balanced  members with the same subscriptions hold partition counts that
//             differ by at most one; with heterogeneous subscriptions a
//             partition only moves between two members subscribed to its
//             topic, from the one holding more to the one holding at least
//             two fewer, until no such move exists (the goal of Kafka's
//             UniformHeterogeneousAssignmentBuilder: balance the totals as far
//             as the subscriptions allow);
//   sticky    every member keeps the partitions of its current target
//             assignment that still exist and that it is still subscribed to;
//             freed partitions go to the subscriber holding the fewest, and
//             only then are partitions moved, one at a time from the member
//             holding the most to the one holding the fewest, so a member that
//             joins or leaves moves the minimum number of partitions.
// Racks are ignored (Kafka 4.4's uniform assignor does not use them either).
// Deterministic: the same spec gives the same result (ties by member id,
// then topic id and partition).
//
// Threads: stateless, see assignor.h.
#pragma once

#include "coordinator/group/assignor.h"

namespace skiff::group::consumer {

class UniformAssignor final : public Assignor {
 public:
  std::string_view name() const override { return "uniform"; }
  TargetAssignment assign(const AssignmentSpec& spec) const override;
};

}  // namespace skiff::group::consumer
