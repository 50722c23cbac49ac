// The StreamsGroup* records of `__consumer_offsets` (KIP-1071), in Kafka
// 4.4's format, so a streams group's topology, members, epochs and
// assignments survive a restart (replayed by OffsetsReplay into
// LoadedStreamsGroup).
//
// Byte layout (as offsets_log.h): key = int16 record type + key struct v0;
// value = int16 version 0 + value struct (flexible, tagged fields); a null
// value is a tombstone.
//  17 StreamsGroupMetadata              key (group)         value (epoch, metadata hash, validated
//                                        topology epoch, last assignment configs, description epochs)
//  19 StreamsGroupMemberMetadata        key (group, member) value (instance, rack, client id/host,
//                                        rebalance timeout, topology epoch, process, endpoint, tags)
//  20 StreamsGroupTargetAssignmentMetadata key (group)      value (assignment epoch, timestamp)
//  21 StreamsGroupTargetAssignmentMember key (group, member) value (active, standby, warm-up tasks)
//  22 StreamsGroupCurrentMemberAssignment key (group, member) value (epochs, state, tasks with
//                                        active assignment epochs, tasks pending revocation)
//  23 StreamsGroupTopology              key (group)         value (epoch, subtopologies)
// The structs are generated from coordinator/group/streams/schemas
// (kafka-group-coordinator 4.4.0); streams/streams_conversions.h converts
// the assignment and topology values.
//
// Threads: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "coordinator/group/streams_group.h"
#include "protocol/byte_reader.h"

namespace skiff::group {

inline constexpr int16_t kStreamsGroupMetadataType = 17;
inline constexpr int16_t kStreamsMemberMetadataType = 19;
inline constexpr int16_t kStreamsTargetMetadataType = 20;
inline constexpr int16_t kStreamsTargetMemberType = 21;
inline constexpr int16_t kStreamsCurrentAssignmentType = 22;
inline constexpr int16_t kStreamsTopologyType = 23;

// One StreamsGroup* record; which fields count depends on `type`.
struct StreamsGroupRecord {
  int16_t type = kStreamsGroupMetadataType;
  std::string group_id;
  std::string member_id;  // types 19, 21, 22
  bool tombstone = false;
  // 17: the group epoch and what goes with it; 20: epoch = assignment epoch.
  int32_t epoch = 0;
  int64_t metadata_hash = 0;
  int32_t validated_topology_epoch = -1;
  std::map<std::string, std::string> assignment_configs;
  int32_t stored_description_epoch = -1;
  StreamsGroupMember member;   // 19: metadata; 22: member.assignment
  streams::TasksTuple target;  // 21
  streams::Topology topology;  // 23
};

bool is_streams_record_type(int16_t type);
std::vector<uint8_t> encode_streams_key(const StreamsGroupRecord& r);
std::optional<std::vector<uint8_t>> encode_streams_value(const StreamsGroupRecord& r);  // nothing: tombstone
// `key` is past the int16 type. Throws protocol::DecodeError on bad bytes.
StreamsGroupRecord decode_streams_record(int16_t type, protocol::ByteReader& key,
                                         std::optional<std::span<const uint8_t>> value);

// The records that take the durable state from `before` to `now`, in
// Kafka's order: departed members' tombstones (current assignment, target,
// member metadata), new or changed member metadata, the topology, the group
// metadata, changed targets and the target epoch, changed current assignments.
std::vector<StreamsGroupRecord> streams_records_since(const std::string& group_id, const StreamsGroupImage& before,
                                                      const StreamsGroup& now);
// Kafka's StreamsGroup.createGroupTombstoneRecords (DeleteGroups, conversion).
std::vector<StreamsGroupRecord> streams_group_tombstones(const std::string& group_id, const StreamsGroup& g);

}  // namespace skiff::group
