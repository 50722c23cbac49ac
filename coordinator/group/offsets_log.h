// The __consumer_offsets record format: Kafka's own, so that Kafka's tools
// (kafka-console-consumer with OffsetsMessageFormatter /
// GroupMetadataMessageFormatter, kafka-dump-log --offsets-decoder, Burrow)
// read what Skiff writes.
//
// Byte layout of one record (as Kafka 4.4's GroupCoordinatorRecordHelpers /
// CoordinatorRecordSerde write it):
//   key   = int16 record type + the key struct at version 0:
//             1 OffsetCommitKey   (string group, string topic, int32 partition)
//             2 GroupMetadataKey  (string group)
//           (type 0 is the legacy OffsetCommitKey, same layout; read only)
//             3-8 the consumer protocol's ConsumerGroup* records
//               (consumer_group_log.h)
//             10-15 the share groups' ShareGroup* records (share_group_log.h)
//             17, 19-23 the streams groups' StreamsGroup* records
//               (streams_group_log.h)
//   value = int16 version + the value struct at that version:
//             OffsetCommitValue v4 (offset, leaderEpoch, metadata,
//               commitTimestamp, tagged topicId: the committed topic's id
//               when it exists), or v1 when the commit carried a retention
//               (expireTimestamp), as Kafka 4.4 writes them
//             GroupMetadataValue v3 (protocolType, generation, protocol,
//               leader, currentStateTimestamp, members)
//           a null value (tombstone) deletes the offset / the group.
// The structs are generated from coordinator/group/schemas (vendored from Kafka's
// kafka-group-coordinator 4.4.0 jar).
//
// Threads: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "coordinator/group/consumer_group_log.h"
#include "coordinator/group/group_types.h"
#include "coordinator/group/share_group_log.h"
#include "coordinator/group/streams_group_log.h"
#include "protocol/types.h"

namespace skiff::group {

struct GroupMemberValue {
  std::string member_id;
  std::optional<std::string> group_instance_id;
  std::string client_id;
  std::string client_host;
  int32_t rebalance_timeout_ms = -1;
  int32_t session_timeout_ms = 0;
  Bytes subscription;
  Bytes assignment;
};

// A group's GroupMetadataValue.
struct GroupRecord {
  std::string group_id;
  std::string protocol_type;  // "" for a group no member has joined
  int32_t generation = 0;
  std::optional<std::string> protocol;
  std::optional<std::string> leader;
  int64_t state_timestamp = 0;  // wall clock ms of the last state change
  std::vector<GroupMemberValue> members;
};

inline constexpr int16_t kOffsetCommitKeyType = 1;
inline constexpr int16_t kGroupMetadataKeyType = 2;

std::vector<uint8_t> encode_offset_key(const std::string& group, const TopicPartition& tp);
// `topic_id`: the committed topic's id (zero: unknown, left out).
std::vector<uint8_t> encode_offset_value(const OffsetAndMetadata& o, const protocol::Uuid& topic_id = {});
std::vector<uint8_t> encode_group_key(const std::string& group);
std::vector<uint8_t> encode_group_value(const GroupRecord& g);

// One decoded record. kConsumer: a ConsumerGroup* record (KIP-848). kShare:
// a ShareGroup* record (KIP-932, share_group_log.h). kStreams: a
// StreamsGroup* record (KIP-1071, streams_group_log.h). kOther: a record
// type Skiff does not know (skipped on load).
struct OffsetsLogRecord {
  enum class Kind { kOffset, kGroup, kConsumer, kShare, kStreams, kOther } kind = Kind::kOther;
  std::optional<ConsumerGroupRecord> consumer;  // kConsumer
  std::optional<ShareGroupRecord> share;        // kShare
  std::optional<StreamsGroupRecord> streams;    // kStreams
  std::string group;
  TopicPartition tp;                        // kOffset
  std::optional<OffsetAndMetadata> offset;  // kOffset; nullopt: tombstone
  std::optional<GroupRecord> group_value;   // kGroup; nullopt: tombstone
  int16_t key_type = -1;
};

// Throws protocol::DecodeError on truncated bytes or an unknown value
// version: a corrupt __consumer_offsets is reported at load, never
// half-applied.
OffsetsLogRecord decode_offsets_log_record(std::span<const uint8_t> key, std::optional<std::span<const uint8_t>> value);

}  // namespace skiff::group
