#include "coordinator/group/consumer_offset_checks.h"

#include <fmt/format.h>

#include "common/log_escape.h"
#include "coordinator/runtime/coordinator_log.h"

namespace skiff::group::consumer {
namespace {

OffsetCheck stale(std::string message) { return {ErrorCode::kStaleMemberEpoch, std::move(message)}; }

OffsetCheck unknown_member(const std::string& member_id, const std::string& group_id) {
  return {ErrorCode::kUnknownMemberId, fmt::format("Member {} is not a member of group {}.", member_id, group_id)};
}

// KIP-1251: a commit at an epoch older than the member's, partition by partition.
OffsetCheck check_assignment_epochs(const ConsumerGroupMember& m, int32_t epoch,
                                    std::span<const CommitPartition> partitions) {
  for (const auto& p : partitions) {
    auto since = assignment_epoch(m.assignment, p.topic_id, p.partition);
    if (!since)
      return stale(
          fmt::format("Partition {}-{} is not assigned or pending revocation for member.", p.topic, p.partition));
    if (epoch < *since)
      return stale(fmt::format("Received member epoch {} is older than assignment epoch {} for partition {}-{}.", epoch,
                               *since, p.topic, p.partition));
  }
  return {};
}

}  // namespace

OffsetCheck check_commit(const ConsumerGroup& group, const std::string& group_id, const CommitIdentity& who,
                         std::span<const CommitPartition> partitions) {
  if (who.member_epoch < 0 && group.empty()) return {};
  if (who.transactional && who.member_epoch == -1 && who.member_id.empty() && !who.instance_id) return {};
  auto it = group.members.find(who.member_id);
  if (it == group.members.end()) return unknown_member(who.member_id, group_id);
  const auto& m = it->second;
  if (!who.transactional && who.api_version < 9)
    return {ErrorCode::kUnsupportedVersion,
            "OffsetCommit version 9 or above must be used by members using the consumer group protocol"};
  const int32_t current = m.assignment.member_epoch;
  if (who.member_epoch == current) return {};
  if (who.member_epoch > current)
    return stale(
        fmt::format("Received member epoch {} is newer than current member epoch {}.", who.member_epoch, current));
  return check_assignment_epochs(m, who.member_epoch, partitions);
}

ErrorCode check_commit_offsets(const ConsumerGroup& group, const std::string& group_id, const CommitIdentity& who,
                               const std::vector<std::pair<TopicPartition, OffsetAndMetadata>>& offsets,
                               const std::vector<Uuid>& topic_ids) {
  std::vector<CommitPartition> parts;
  parts.reserve(offsets.size());
  for (size_t i = 0; i < offsets.size(); ++i)
    parts.push_back({offsets[i].first.topic, i < topic_ids.size() ? topic_ids[i] : Uuid{}, offsets[i].first.partition});
  auto c = check_commit(group, group_id, who, parts);
  if (c.error != ErrorCode::kNone)
    coordinator::log().debug("group {}: commit of member {} refused: {}", escaped(group_id), escaped(who.member_id),
                             c.message);
  return c.error;
}

OffsetCheck check_fetch(const ConsumerGroup& group, const std::string& group_id,
                        const std::optional<std::string>& member_id, int32_t member_epoch) {
  if (!member_id && member_epoch < 0) return {};
  const std::string id = member_id.value_or("");
  auto it = group.members.find(id);
  if (it == group.members.end()) return unknown_member(id, group_id);
  const int32_t expected = it->second.assignment.member_epoch;
  if (member_epoch != expected)
    return stale(fmt::format("The received member epoch {} does not match the expected member epoch {}.", member_epoch,
                             expected));
  return {};
}

}  // namespace skiff::group::consumer
