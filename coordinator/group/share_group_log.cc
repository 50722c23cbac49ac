#include "coordinator/group/share_group_log.h"

#include "common/wall_clock.h"
#include "coordinator/group/generated/share_group_current_member_assignment_key.h"
#include "coordinator/group/generated/share_group_current_member_assignment_value.h"
#include "coordinator/group/generated/share_group_member_metadata_key.h"
#include "coordinator/group/generated/share_group_member_metadata_value.h"
#include "coordinator/group/generated/share_group_metadata_key.h"
#include "coordinator/group/generated/share_group_metadata_value.h"
#include "coordinator/group/generated/share_group_state_partition_metadata_key.h"
#include "coordinator/group/generated/share_group_state_partition_metadata_value.h"
#include "coordinator/group/generated/share_group_target_assignment_member_key.h"
#include "coordinator/group/generated/share_group_target_assignment_member_value.h"
#include "coordinator/group/generated/share_group_target_assignment_metadata_key.h"
#include "coordinator/group/generated/share_group_target_assignment_metadata_value.h"
#include "coordinator/group/modern_group_log.h"
#include "protocol/coordinator_record.h"

namespace skiff::group {
namespace {

using namespace skiff::protocol;
using modern_log::decode_group_key;
using modern_log::decode_member_key;
using modern_log::from_parts;
using modern_log::to_parts;
constexpr std::string_view kLog = "__consumer_offsets";

template <class Infos>
Infos to_infos(const std::map<Uuid, ShareInitTopic>& topics) {
  Infos out;
  for (const auto& [id, t] : topics) {
    auto& i = out.emplace_back();
    i.topic_id = id;
    i.topic_name = t.name;
    i.partitions.assign(t.partitions.begin(), t.partitions.end());
  }
  return out;
}

template <class Infos>
std::map<Uuid, ShareInitTopic> from_infos(const Infos& infos) {
  std::map<Uuid, ShareInitTopic> out;
  for (const auto& i : infos) {
    auto& t = out[i.topic_id];
    t.name = i.topic_name;
    t.partitions.insert(i.partitions.begin(), i.partitions.end());
  }
  return out;
}

std::vector<uint8_t> state_value(const ShareStatePartitions& s) {
  ShareGroupStatePartitionMetadataValue v;
  v.initializing_topics = to_infos<decltype(v.initializing_topics)>(s.initializing);
  v.initialized_topics = to_infos<decltype(v.initialized_topics)>(s.initialized);
  for (const auto& [id, name] : s.deleting) {
    auto& d = v.deleting_topics.emplace_back();
    d.topic_id = id;
    d.topic_name = name;
  }
  return encode_prefixed(0, v, 0);
}

void decode_state(ShareGroupRecord& r, ByteReader& vr) {
  auto v = decode_versioned<ShareGroupStatePartitionMetadataValue>(vr, kLog);
  r.state.initializing = from_infos(v.initializing_topics);
  r.state.initialized = from_infos(v.initialized_topics);
  for (const auto& d : v.deleting_topics) r.state.deleting[d.topic_id] = d.topic_name;
}

ShareGroupRecord record(int16_t type, const std::string& group, const std::string& member = {}) {
  ShareGroupRecord r;
  r.type = type;
  r.group_id = group;
  r.member_id = member;
  return r;
}

}  // namespace

bool is_share_record_type(int16_t type) {
  return type >= kShareMemberMetadataType && type <= kShareStatePartitionMetadataType;
}

std::vector<uint8_t> encode_share_key(const ShareGroupRecord& r) {
  auto mk = [&](auto k) {
    k.group_id = r.group_id;
    k.member_id = r.member_id;
    return encode_prefixed(r.type, k, 0);
  };
  auto gk = [&](auto k) {
    k.group_id = r.group_id;
    return encode_prefixed(r.type, k, 0);
  };
  switch (r.type) {
    case kShareMemberMetadataType:
      return mk(ShareGroupMemberMetadataKey{});
    case kShareTargetMetadataType:
      return gk(ShareGroupTargetAssignmentMetadataKey{});
    case kShareTargetMemberType:
      return mk(ShareGroupTargetAssignmentMemberKey{});
    case kShareCurrentAssignmentType:
      return mk(ShareGroupCurrentMemberAssignmentKey{});
    case kShareStatePartitionMetadataType:
      return gk(ShareGroupStatePartitionMetadataKey{});
    default:
      return gk(ShareGroupMetadataKey{});
  }
}

std::optional<std::vector<uint8_t>> encode_share_value(const ShareGroupRecord& r) {
  if (r.tombstone) return std::nullopt;
  switch (r.type) {
    case kShareMemberMetadataType: {
      ShareGroupMemberMetadataValue v;
      v.rack_id = r.member.rack_id;
      v.client_id = r.member.client_id;
      v.client_host = r.member.client_host;
      v.subscribed_topic_names = r.member.subscribed_names;
      return encode_prefixed(0, v, 0);
    }
    case kShareTargetMetadataType: {
      ShareGroupTargetAssignmentMetadataValue v;
      v.assignment_epoch = r.epoch;
      v.assignment_timestamp = r.timestamp_ms;
      return encode_prefixed(0, v, 0);
    }
    case kShareTargetMemberType: {
      ShareGroupTargetAssignmentMemberValue v;
      v.topic_partitions = to_parts<decltype(v.topic_partitions)>(r.target);
      return encode_prefixed(0, v, 0);
    }
    case kShareCurrentAssignmentType: {
      ShareGroupCurrentMemberAssignmentValue v;
      v.member_epoch = r.member.member_epoch;
      v.previous_member_epoch = r.member.previous_member_epoch;
      v.state = r.member.state;
      v.assigned_partitions = to_parts<decltype(v.assigned_partitions)>(r.member.assigned);
      return encode_prefixed(0, v, 0);
    }
    case kShareStatePartitionMetadataType:
      return state_value(r.state);
    default: {
      ShareGroupMetadataValue v;
      v.epoch = r.epoch;
      v.metadata_hash = r.metadata_hash;
      return encode_prefixed(0, v, 0);
    }
  }
}

ShareGroupRecord decode_share_record(int16_t type, ByteReader& kr, std::optional<std::span<const uint8_t>> value) {
  ShareGroupRecord r;
  r.type = type;
  r.tombstone = !value;
  std::optional<ByteReader> vr;
  if (value) vr.emplace(*value);
  switch (type) {
    case kShareMemberMetadataType:
      decode_member_key<ShareGroupMemberMetadataKey>(r, kr);
      if (vr) {
        auto v = decode_versioned<ShareGroupMemberMetadataValue>(*vr, kLog);
        r.member.rack_id = std::move(v.rack_id);
        r.member.client_id = std::move(v.client_id);
        r.member.client_host = std::move(v.client_host);
        r.member.subscribed_names = std::move(v.subscribed_topic_names);
      }
      break;
    case kShareTargetMetadataType:
      decode_group_key<ShareGroupTargetAssignmentMetadataKey>(r, kr);
      if (vr) {
        auto v = decode_versioned<ShareGroupTargetAssignmentMetadataValue>(*vr, kLog);
        r.epoch = v.assignment_epoch;
        r.timestamp_ms = v.assignment_timestamp;
      }
      break;
    case kShareTargetMemberType:
      decode_member_key<ShareGroupTargetAssignmentMemberKey>(r, kr);
      if (vr)
        r.target = from_parts(decode_versioned<ShareGroupTargetAssignmentMemberValue>(*vr, kLog).topic_partitions);
      break;
    case kShareCurrentAssignmentType:
      decode_member_key<ShareGroupCurrentMemberAssignmentKey>(r, kr);
      if (vr) {
        auto v = decode_versioned<ShareGroupCurrentMemberAssignmentValue>(*vr, kLog);
        r.member.member_epoch = v.member_epoch;
        r.member.previous_member_epoch = v.previous_member_epoch;
        r.member.state = v.state;
        r.member.assigned = from_parts(v.assigned_partitions);
      }
      break;
    case kShareStatePartitionMetadataType:
      decode_group_key<ShareGroupStatePartitionMetadataKey>(r, kr);
      if (vr) decode_state(r, *vr);
      break;
    default:
      decode_group_key<ShareGroupMetadataKey>(r, kr);
      if (vr) {
        auto v = decode_versioned<ShareGroupMetadataValue>(*vr, kLog);
        r.epoch = v.epoch;
        r.metadata_hash = v.metadata_hash;
      }
  }
  return r;
}

std::vector<ShareGroupRecord> share_records_since(const std::string& g, const ShareGroupImage& before,
                                                  const ShareGroup& now) {
  std::vector<ShareGroupRecord> out;
  for (const auto& [id, m] : before.members) {
    if (now.members.contains(id)) continue;
    for (int16_t type : {kShareCurrentAssignmentType, kShareTargetMemberType, kShareMemberMetadataType}) {
      out.push_back(record(type, g, id));
      out.back().tombstone = true;
    }
  }
  for (const auto& [id, m] : now.members) {
    auto old = before.members.find(id);
    if (old == before.members.end() || !old->second.same_metadata(m))
      out.emplace_back(record(kShareMemberMetadataType, g, id)).member = m;
  }
  if (now.group_epoch != before.group_epoch || now.metadata_hash != before.metadata_hash) {
    auto& r = out.emplace_back(record(kShareGroupMetadataType, g));
    r.epoch = now.group_epoch;
    r.metadata_hash = now.metadata_hash;
  }
  for (const auto& [id, a] : now.target) {
    auto old = before.target.find(id);
    if (old != before.target.end() && old->second == a) continue;
    out.emplace_back(record(kShareTargetMemberType, g, id)).target = a;
  }
  if (now.assignment_epoch != before.assignment_epoch) {
    auto& r = out.emplace_back(record(kShareTargetMetadataType, g));
    r.epoch = now.assignment_epoch;
    r.timestamp_ms = wall_clock_ms();
  }
  for (const auto& [id, m] : now.members) {
    auto old = before.members.find(id);
    if (old == before.members.end() || !old->second.same_assignment(m))
      out.emplace_back(record(kShareCurrentAssignmentType, g, id)).member = m;
  }
  if (now.state_partitions && now.state_partitions != before.state_partitions)
    out.emplace_back(record(kShareStatePartitionMetadataType, g)).state = *now.state_partitions;
  return out;
}

std::vector<ShareGroupRecord> share_group_tombstones(const std::string& g, const ShareGroup& sg) {
  std::vector<ShareGroupRecord> out;
  for (const auto& [id, m] : sg.members) out.push_back(record(kShareCurrentAssignmentType, g, id));
  for (const auto& [id, m] : sg.members) out.push_back(record(kShareTargetMemberType, g, id));
  out.push_back(record(kShareTargetMetadataType, g));
  for (const auto& [id, m] : sg.members) out.push_back(record(kShareMemberMetadataType, g, id));
  out.push_back(record(kShareStatePartitionMetadataType, g));
  out.push_back(record(kShareGroupMetadataType, g));
  for (auto& r : out) r.tombstone = true;
  return out;
}

}  // namespace skiff::group
