// The reconciliation of one consumer-protocol member (KIP-848; Kafka's
// CurrentAssignmentBuilder): moves a member's current assignment towards its
// target assignment, one heartbeat at a time, so that a partition is only
// given to a member once its previous owner has revoked it.
//
// A member is in one of Kafka's MemberStates (values as persisted in
// ConsumerGroupCurrentMemberAssignmentValue.State):
//   STABLE                 assigned == the target of its epoch; when the
//                          target epoch moves, reconcile towards it;
//   UNREVOKED_PARTITIONS   it must give up `pending_revocation` first; it
//                          keeps its epoch until the heartbeat's owned
//                          partitions no longer contain any of them;
//   UNRELEASED_PARTITIONS  it is at the target epoch but some target
//                          partitions are still owned by another member;
//                          they are added as soon as they are free;
//   UNKNOWN                a state from a newer broker: fenced unless it owns
//                          nothing, then reconciled from scratch.
// Epochs: the group epoch counts membership/subscription changes; the target
// assignment carries the epoch it was computed at; a member's epoch moves to
// the target epoch once nothing is left to revoke (its previous epoch is kept:
// a heartbeat with it is accepted when its response was lost). Unlike
// Kafka's ConsumerGroupMember.Builder, the previous epoch only changes when
// the epoch does, so a re-reconciliation at the same epoch (a member waiting
// in UNRELEASED_PARTITIONS) does not fence a member whose response was lost.
//
// Assignment epochs (KIP-1251): each held partition keeps the target epoch
// at which it was first given to the member, however often the member's
// epoch moves on while it keeps it; OffsetCommit accepts an older member
// epoch for a partition held since that epoch (consumer_offset_checks.h).
//
// Ownership: PartitionOwnership maps every partition a member holds
// (assigned or pending revocation) to that member's epoch (Kafka's
// currentPartitionEpoch); a partition absent from it is free. The caller
// swaps a member's entries with update() whenever it replaces the member's
// state, which refuses a partition already owned by another member.
//
// Threads: plain values and pure functions; the coordinator keeps them under
// the group's lock.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "coordinator/group/assignor.h"

namespace skiff::group::consumer {

enum class MemberState : int8_t {
  kStable = 0,
  kUnrevokedPartitions = 1,
  kUnreleasedPartitions = 2,
  kUnknown = 127,
};
const char* member_state_name(MemberState s);

struct MemberAssignmentState {
  MemberState state = MemberState::kStable;
  int32_t member_epoch = 0;
  int32_t previous_member_epoch = -1;
  Assignment assigned;            // what the member is told it owns
  Assignment pending_revocation;  // what it still owns and must give up
  // KIP-1251: the target epoch at which each partition of `assigned` and
  // `pending_revocation` was given to the member (kept while it holds it;
  // persisted as AssignmentEpochs). A partition missing here counts as given
  // at member_epoch (state from a record without epochs).
  std::map<Uuid, std::map<int32_t, int32_t>> assignment_epochs;
  bool operator==(const MemberAssignmentState&) const = default;
};

// The epoch at which the member got the partition it holds (assigned or
// pending revocation); nothing when it holds neither.
std::optional<int32_t> assignment_epoch(const MemberAssignmentState& member, const Uuid& topic, int32_t partition);

class PartitionOwnership {
 public:
  // The epoch of the member owning the partition; -1 when free.
  int32_t epoch(const Uuid& topic, int32_t partition) const;
  // Replaces `before`'s partitions by `after`'s (assigned and pending
  // revocation, at after.member_epoch). Returns false, changing nothing, if
  // one of `after`'s partitions is owned by someone other than `before`.
  bool update(const MemberAssignmentState& before, const MemberAssignmentState& after);
  // Frees a member's partitions (it left or was fenced).
  void remove(const MemberAssignmentState& member);
  bool empty() const { return epochs_.empty(); }

 private:
  std::map<Uuid, std::map<int32_t, int32_t>> epochs_;
};

struct ReconcileInput {
  int32_t target_epoch = 0;
  const Assignment* target = nullptr;          // the member's target assignment at target_epoch
  const std::set<Uuid>* subscribed = nullptr;  // topics the member subscribes to now
  const Assignment* owned = nullptr;           // from the heartbeat; nullptr: not sent
  const PartitionOwnership* owners = nullptr;
};

struct ReconcileResult {
  MemberAssignmentState member;
  std::optional<std::string> fenced;  // FENCED_MEMBER_EPOCH with Kafka's message
};

// The member's next state (unchanged when it cannot progress yet).
ReconcileResult reconcile(const MemberAssignmentState& member, const ReconcileInput& in);

// Kafka's check of the heartbeat's member epoch: a message for
// FENCED_MEMBER_EPOCH, or nothing when the epoch is acceptable (the current
// one, or the previous one with owned partitions within the assignment).
std::optional<std::string> check_member_epoch(const MemberAssignmentState& member, int32_t received_epoch,
                                              const Assignment* owned);

}  // namespace skiff::group::consumer
