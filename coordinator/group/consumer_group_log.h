// The ConsumerGroup* records of `__consumer_offsets` (KIP-848), in Kafka
// 4.4's format, so a consumer group's members, epochs and assignments
// survive a restart (replayed by OffsetsReplay into LoadedConsumerGroup).
//
// Byte layout (as offsets_log.h): key = int16 record type + key struct v0;
// value = int16 version 0 + value struct (flexible, tagged fields); a null
// value is a tombstone.
//   3 ConsumerGroupMetadata          key (group)          value (epoch, metadataHash)
//   4 ConsumerGroupPartitionMetadata key (group)          read and ignored (not written since 4.1)
//   5 ConsumerGroupMemberMetadata    key (group, member)  value (instance, rack, client id/host,
//                                       subscribed names, regex, rebalance timeout, assignor,
//                                       tagged 0: ClassicMemberMetadata of a classic member)
//   6 ConsumerGroupTargetAssignmentMetadata key (group)   value (assignment epoch, timestamp)
//   7 ConsumerGroupTargetAssignmentMember key (group, member) value (topic partitions)
//   8 ConsumerGroupCurrentMemberAssignment key (group, member) value (epoch, previous epoch,
//                                       state, assigned, pending revocation, each
//                                       topic with its tagged AssignmentEpochs)
//  16 ConsumerGroupRegularExpression key (group, regex)  value (matched topics, version,
//                                       timestamp); written when the matches change
// The structs are generated from coordinator/group/schemas (kafka-group-coordinator 4.4.0).
//
// Threads: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "coordinator/group/consumer_group.h"
#include "protocol/byte_reader.h"

namespace skiff::group {

inline constexpr int16_t kConsumerGroupMetadataType = 3;
inline constexpr int16_t kConsumerGroupPartitionMetadataType = 4;
inline constexpr int16_t kConsumerMemberMetadataType = 5;
inline constexpr int16_t kConsumerTargetMetadataType = 6;
inline constexpr int16_t kConsumerTargetMemberType = 7;
inline constexpr int16_t kConsumerCurrentAssignmentType = 8;
inline constexpr int16_t kConsumerRegexType = 16;

// One ConsumerGroup* record; which fields count depends on `type`.
struct ConsumerGroupRecord {
  int16_t type = kConsumerGroupMetadataType;
  std::string group_id;
  std::string member_id;  // types 5, 7, 8
  bool tombstone = false;
  int32_t epoch = 0;            // 3: group epoch; 6: assignment epoch
  int64_t metadata_hash = 0;    // 3
  std::string regex;            // 16 (key)
  ResolvedRegex resolved;       // 16: topics, version, timestamp
  ConsumerGroupMember member;   // 5: identity and subscription; 8: member.assignment
  consumer::Assignment target;  // 7
};

bool is_consumer_record_type(int16_t type);
std::vector<uint8_t> encode_consumer_key(const ConsumerGroupRecord& r);
// Nothing for a tombstone.
std::optional<std::vector<uint8_t>> encode_consumer_value(const ConsumerGroupRecord& r);
// `key` is past the int16 type. Throws protocol::DecodeError on bad bytes.
ConsumerGroupRecord decode_consumer_record(int16_t type, protocol::ByteReader& key,
                                           std::optional<std::span<const uint8_t>> value);

// The records that take the durable state from `before` to `now`, in Kafka's
// order: departed members' tombstones (current assignment, target, member
// metadata), new or changed members' metadata, regexes no longer used
// (tombstones) and new or changed resolutions, the group epoch and metadata hash, changed
// targets and the target epoch, changed current assignments.
std::vector<ConsumerGroupRecord> consumer_records_since(const std::string& group_id, const ConsumerGroupImage& before,
                                                        const ConsumerGroup& now);
// The tombstones of an empty consumer group (DeleteGroups, conversion to classic).
std::vector<ConsumerGroupRecord> consumer_group_tombstones(const std::string& group_id);

}  // namespace skiff::group
