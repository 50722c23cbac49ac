#include "coordinator/group/offsets_log.h"

#include "coordinator/group/generated/group_metadata_key.h"
#include "coordinator/group/generated/group_metadata_value.h"
#include "coordinator/group/generated/offset_commit_key.h"
#include "coordinator/group/generated/offset_commit_value.h"
#include "protocol/coordinator_record.h"

namespace skiff::group {
namespace {

using protocol::GroupMetadataKey;
using protocol::GroupMetadataValue;
using protocol::OffsetCommitKey;
using protocol::OffsetCommitValue;

// Kafka 4.4 (GroupCoordinatorRecordHelpers, and what its broker writes):
// GroupMetadataValue at v3; OffsetCommitValue at v4 (with the topic id), or
// v1 when the offset carries its own expiry.
constexpr int16_t kGroupValueVersion = 3;
constexpr int16_t kOffsetValueVersion = 4;
constexpr int16_t kOffsetValueVersionWithExpiry = 1;

GroupRecord from_value(std::string group, GroupMetadataValue v) {
  GroupRecord g{.group_id = std::move(group),
                .protocol_type = std::move(v.protocol_type),
                .generation = v.generation,
                .protocol = std::move(v.protocol),
                .leader = std::move(v.leader),
                .state_timestamp = v.current_state_timestamp,
                .members = {}};
  for (auto& m : v.members) {
    g.members.push_back({std::move(m.member_id), std::move(m.group_instance_id), std::move(m.client_id),
                         std::move(m.client_host), m.rebalance_timeout, m.session_timeout, std::move(m.subscription),
                         std::move(m.assignment)});
  }
  return g;
}

}  // namespace

std::vector<uint8_t> encode_offset_key(const std::string& group, const TopicPartition& tp) {
  OffsetCommitKey k;
  k.group = group;
  k.topic = tp.topic;
  k.partition = tp.partition;
  return protocol::encode_prefixed(kOffsetCommitKeyType, k, 0);
}

std::vector<uint8_t> encode_offset_value(const OffsetAndMetadata& o, const protocol::Uuid& topic_id) {
  OffsetCommitValue v;
  v.offset = o.offset;
  v.leader_epoch = o.leader_epoch;
  v.metadata = o.metadata;
  v.commit_timestamp = o.commit_timestamp;
  v.expire_timestamp = o.expire_timestamp;
  v.topic_id = topic_id;
  const int16_t version = o.expire_timestamp >= 0 ? kOffsetValueVersionWithExpiry : kOffsetValueVersion;
  return protocol::encode_prefixed(version, v, version);
}

std::vector<uint8_t> encode_group_key(const std::string& group) {
  GroupMetadataKey k;
  k.group = group;
  return protocol::encode_prefixed(kGroupMetadataKeyType, k, 0);
}

std::vector<uint8_t> encode_group_value(const GroupRecord& g) {
  GroupMetadataValue v;
  v.protocol_type = g.protocol_type;
  v.generation = g.generation;
  v.protocol = g.protocol;
  v.leader = g.leader;
  v.current_state_timestamp = g.state_timestamp;
  for (const auto& m : g.members) {
    GroupMetadataValue::MemberMetadata mm;
    mm.member_id = m.member_id;
    mm.group_instance_id = m.group_instance_id;
    mm.client_id = m.client_id;
    mm.client_host = m.client_host;
    mm.rebalance_timeout = m.rebalance_timeout_ms;
    mm.session_timeout = m.session_timeout_ms;
    mm.subscription = m.subscription;
    mm.assignment = m.assignment;
    v.members.push_back(std::move(mm));
  }
  return protocol::encode_prefixed(kGroupValueVersion, v, kGroupValueVersion);
}

OffsetsLogRecord decode_offsets_log_record(std::span<const uint8_t> key,
                                           std::optional<std::span<const uint8_t>> value) {
  protocol::ByteReader kr(key);
  OffsetsLogRecord rec;
  rec.key_type = kr.read_int16();
  if (rec.key_type == 0 || rec.key_type == kOffsetCommitKeyType) {
    OffsetCommitKey k;
    k.decode(kr, 0);
    rec.kind = OffsetsLogRecord::Kind::kOffset;
    rec.group = std::move(k.group);
    rec.tp = {std::move(k.topic), k.partition};
    if (value) {
      protocol::ByteReader vr(*value);
      auto v = protocol::decode_versioned<OffsetCommitValue>(vr, "__consumer_offsets");
      rec.offset =
          OffsetAndMetadata{v.offset, v.leader_epoch, std::move(v.metadata), v.commit_timestamp, v.expire_timestamp};
    }
  } else if (is_consumer_record_type(rec.key_type)) {
    rec.kind = OffsetsLogRecord::Kind::kConsumer;
    rec.consumer = decode_consumer_record(rec.key_type, kr, value);
    rec.group = rec.consumer->group_id;
  } else if (is_share_record_type(rec.key_type)) {
    rec.kind = OffsetsLogRecord::Kind::kShare;
    rec.share = decode_share_record(rec.key_type, kr, value);
    rec.group = rec.share->group_id;
  } else if (is_streams_record_type(rec.key_type)) {
    rec.kind = OffsetsLogRecord::Kind::kStreams;
    rec.streams = decode_streams_record(rec.key_type, kr, value);
    rec.group = rec.streams->group_id;
  } else if (rec.key_type == kGroupMetadataKeyType) {
    GroupMetadataKey k;
    k.decode(kr, 0);
    rec.kind = OffsetsLogRecord::Kind::kGroup;
    rec.group = k.group;
    if (value) {
      protocol::ByteReader vr(*value);
      rec.group_value =
          from_value(std::move(k.group), protocol::decode_versioned<GroupMetadataValue>(vr, "__consumer_offsets"));
    }
  }
  return rec;
}

}  // namespace skiff::group
