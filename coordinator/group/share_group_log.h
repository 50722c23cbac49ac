// The ShareGroup* records of `__consumer_offsets` (KIP-932), in Kafka 4.4's
// format, so a share group's members, epochs, assignments and share-state
// bookkeeping survive a restart (replayed by OffsetsReplay into
// LoadedShareGroup).
//
// Byte layout (as offsets_log.h): key = int16 record type + key struct v0;
// value = int16 version 0 + value struct (flexible, tagged fields); a null
// value is a tombstone.
//  10 ShareGroupMemberMetadata          key (group, member) value (rack, client id/host, subscribed names)
//  11 ShareGroupMetadata                key (group)         value (epoch, metadataHash)
//  12 ShareGroupTargetAssignmentMetadata key (group)        value (assignment epoch, tagged 0: timestamp)
//  13 ShareGroupTargetAssignmentMember  key (group, member) value (topic partitions)
//  14 ShareGroupCurrentMemberAssignment key (group, member) value (epoch, previous epoch, state, assigned)
//  15 ShareGroupStatePartitionMetadata  key (group)         value (initializing / initialized topics with
//                                                            partitions, deleting topics)
// The structs are generated from coordinator/group/schemas (kafka-group-coordinator 4.4.0).
//
// Threads: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "coordinator/group/share_group.h"
#include "protocol/byte_reader.h"
#include "protocol/types.h"

namespace skiff::group {

inline constexpr int16_t kShareMemberMetadataType = 10;
inline constexpr int16_t kShareGroupMetadataType = 11;
inline constexpr int16_t kShareTargetMetadataType = 12;
inline constexpr int16_t kShareTargetMemberType = 13;
inline constexpr int16_t kShareCurrentAssignmentType = 14;
inline constexpr int16_t kShareStatePartitionMetadataType = 15;

// One ShareGroup* record; which fields count depends on `type`.
struct ShareGroupRecord {
  int16_t type = kShareGroupMetadataType;
  std::string group_id;
  std::string member_id;  // types 10, 13, 14
  bool tombstone = false;
  int32_t epoch = 0;            // 11: group epoch; 12: assignment epoch
  int64_t metadata_hash = 0;    // 11
  int64_t timestamp_ms = 0;     // 12
  ShareGroupMember member;      // 10: metadata; 14: epochs, state, assigned
  consumer::Assignment target;  // 13
  ShareStatePartitions state;   // 15
};

bool is_share_record_type(int16_t type);
std::vector<uint8_t> encode_share_key(const ShareGroupRecord& r);
std::optional<std::vector<uint8_t>> encode_share_value(const ShareGroupRecord& r);  // nothing: tombstone
// `key` is past the int16 type. Throws protocol::DecodeError on bad bytes.
ShareGroupRecord decode_share_record(int16_t type, protocol::ByteReader& key,
                                     std::optional<std::span<const uint8_t>> value);

// The records that take the durable state from `before` to `now`, in
// Kafka's order: departed members' tombstones (current assignment, target,
// member metadata), new or changed member metadata, the group epoch and
// hash, changed targets and the target epoch, changed current assignments,
// the state-partition metadata.
std::vector<ShareGroupRecord> share_records_since(const std::string& group_id, const ShareGroupImage& before,
                                                  const ShareGroup& now);
// Kafka's ShareGroup.createGroupTombstoneRecords (DeleteGroups of an empty group).
std::vector<ShareGroupRecord> share_group_tombstones(const std::string& group_id, const ShareGroup& g);

}  // namespace skiff::group
