// The member checks of OffsetCommit, TxnOffsetCommit and OffsetFetch on a
// consumer group (KIP-848), as Kafka 4.4's ConsumerGroup.validateOffsetCommit
// (with KIP-1251's per-partition assignment-epoch validator) and
// validateOffsetFetch:
//
// Commit: a negative epoch on a group with no members commits (admin tools,
// manual assignment); a transactional commit without member id, instance id
// and with epoch -1 commits (a producer that gave no group metadata);
// otherwise the member must exist (UNKNOWN_MEMBER_ID); a non-transactional
// OffsetCommit below v9 from a consumer-protocol member is
// UNSUPPORTED_VERSION; the member's epoch commits every partition; a newer
// epoch is STALE_MEMBER_EPOCH; an older one commits only partitions the
// member holds (assigned or pending revocation) since that epoch or before
// (their assignment epoch <= the epoch sent), else STALE_MEMBER_EPOCH for the
// whole commit. Topics are matched by id (Kafka resolves v9's names to ids).
//
// Fetch: no member id with a negative epoch is an admin's fetch (accepted);
// otherwise the member must exist and the epoch match exactly.
//
// Threads: pure functions; the caller holds the group's lock.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "coordinator/group/consumer_group.h"
#include "coordinator/group/group_types.h"
#include "protocol/error_codes.h"

namespace skiff::group::consumer {

struct CommitIdentity {
  std::string member_id;
  std::optional<std::string> instance_id;
  int32_t member_epoch = -1;
  bool transactional = false;
  int16_t api_version = 10;  // OffsetCommit's (not checked for transactional commits)
};

struct CommitPartition {
  std::string topic;  // for the message
  Uuid topic_id;
  int32_t partition = 0;
};

struct OffsetCheck {
  ErrorCode error = ErrorCode::kNone;
  std::string message;  // Kafka's, for the log
};

OffsetCheck check_commit(const ConsumerGroup& group, const std::string& group_id, const CommitIdentity& who,
                         std::span<const CommitPartition> partitions);

// check_commit over a commit's offsets (`topic_ids` in the same order; a
// missing one is the zero id), logged when refused; the error or NONE.
ErrorCode check_commit_offsets(const ConsumerGroup& group, const std::string& group_id, const CommitIdentity& who,
                               const std::vector<std::pair<TopicPartition, OffsetAndMetadata>>& offsets,
                               const std::vector<Uuid>& topic_ids);

OffsetCheck check_fetch(const ConsumerGroup& group, const std::string& group_id,
                        const std::optional<std::string>& member_id, int32_t member_epoch);

}  // namespace skiff::group::consumer
