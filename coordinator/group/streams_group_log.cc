#include "coordinator/group/streams_group_log.h"

#include "common/wall_clock.h"
#include "coordinator/group/modern_group_log.h"
#include "coordinator/group/streams/generated/streams_group_current_member_assignment_key.h"
#include "coordinator/group/streams/generated/streams_group_current_member_assignment_value.h"
#include "coordinator/group/streams/generated/streams_group_member_metadata_key.h"
#include "coordinator/group/streams/generated/streams_group_member_metadata_value.h"
#include "coordinator/group/streams/generated/streams_group_metadata_key.h"
#include "coordinator/group/streams/generated/streams_group_metadata_value.h"
#include "coordinator/group/streams/generated/streams_group_target_assignment_member_key.h"
#include "coordinator/group/streams/generated/streams_group_target_assignment_member_value.h"
#include "coordinator/group/streams/generated/streams_group_target_assignment_metadata_key.h"
#include "coordinator/group/streams/generated/streams_group_target_assignment_metadata_value.h"
#include "coordinator/group/streams/generated/streams_group_topology_key.h"
#include "coordinator/group/streams/generated/streams_group_topology_value.h"
#include "coordinator/group/streams/streams_conversions.h"
#include "protocol/coordinator_record.h"

namespace skiff::group {
namespace {

using namespace skiff::protocol;
using modern_log::decode_group_key;
using modern_log::decode_member_key;
constexpr std::string_view kStreamsLog = "__consumer_offsets";

StreamsGroupRecord streams_record(int16_t type, const std::string& group, const std::string& member = {}) {
  StreamsGroupRecord r;
  r.type = type;
  r.group_id = group;
  r.member_id = member;
  return r;
}

std::vector<uint8_t> member_value(const StreamsGroupMember& m) {
  StreamsGroupMemberMetadataValue v;
  v.instance_id = m.instance_id;
  v.rack_id = m.rack_id;
  v.client_id = m.client_id;
  v.client_host = m.client_host;
  v.rebalance_timeout_ms = m.rebalance_timeout_ms;
  v.topology_epoch = m.topology_epoch;
  v.process_id = m.process_id;
  if (m.user_endpoint) {
    v.user_endpoint.emplace();
    v.user_endpoint->host = m.user_endpoint->host;
    v.user_endpoint->port = m.user_endpoint->port;
  }
  for (const auto& [k, val] : m.client_tags) {
    auto& kv = v.client_tags.emplace_back();
    kv.key = k;
    kv.value = val;
  }
  return encode_prefixed(0, v, 0);
}

void decode_member(StreamsGroupRecord& r, ByteReader& vr) {
  auto v = decode_versioned<StreamsGroupMemberMetadataValue>(vr, kStreamsLog);
  auto& m = r.member;
  m.instance_id = std::move(v.instance_id);
  m.rack_id = std::move(v.rack_id);
  m.client_id = std::move(v.client_id);
  m.client_host = std::move(v.client_host);
  m.rebalance_timeout_ms = v.rebalance_timeout_ms;
  m.topology_epoch = v.topology_epoch;
  m.process_id = std::move(v.process_id);
  if (v.user_endpoint) m.user_endpoint = StreamsEndpoint{std::move(v.user_endpoint->host), v.user_endpoint->port};
  for (auto& kv : v.client_tags) m.client_tags[std::move(kv.key)] = std::move(kv.value);
}

std::vector<uint8_t> group_value(const StreamsGroupRecord& r) {
  StreamsGroupMetadataValue v;
  v.epoch = r.epoch;
  v.metadata_hash = r.metadata_hash;
  v.validated_topology_epoch = r.validated_topology_epoch;
  v.last_assignment_configs.emplace();
  for (const auto& [k, val] : r.assignment_configs) {
    auto& c = v.last_assignment_configs->emplace_back();
    c.key = k;
    c.value = val;
  }
  v.stored_description_topology_epoch = r.stored_description_epoch;
  return encode_prefixed(0, v, 0);
}

void decode_group(StreamsGroupRecord& r, ByteReader& vr) {
  auto v = decode_versioned<StreamsGroupMetadataValue>(vr, kStreamsLog);
  r.epoch = v.epoch;
  r.metadata_hash = v.metadata_hash;
  r.validated_topology_epoch = v.validated_topology_epoch;
  if (v.last_assignment_configs)
    for (auto& c : *v.last_assignment_configs) r.assignment_configs[std::move(c.key)] = std::move(c.value);
  r.stored_description_epoch = v.stored_description_topology_epoch;
}

StreamsGroupRecord group_record(const std::string& g, const StreamsGroup& now) {
  auto r = streams_record(kStreamsGroupMetadataType, g);
  r.epoch = now.group_epoch;
  r.metadata_hash = now.metadata_hash;
  r.validated_topology_epoch = now.validated_topology_epoch;
  r.assignment_configs = now.assignment_configs;
  r.stored_description_epoch = now.stored_description_epoch;
  return r;
}

bool group_changed(const StreamsGroupImage& b, const StreamsGroup& n) {
  return n.group_epoch != b.group_epoch || n.metadata_hash != b.metadata_hash ||
         n.validated_topology_epoch != b.validated_topology_epoch || n.assignment_configs != b.assignment_configs ||
         n.stored_description_epoch != b.stored_description_epoch;
}

}  // namespace

bool is_streams_record_type(int16_t type) {
  return type == kStreamsGroupMetadataType || (type >= kStreamsMemberMetadataType && type <= kStreamsTopologyType);
}

std::vector<uint8_t> encode_streams_key(const StreamsGroupRecord& r) {
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
    case kStreamsMemberMetadataType:
      return mk(StreamsGroupMemberMetadataKey{});
    case kStreamsTargetMetadataType:
      return gk(StreamsGroupTargetAssignmentMetadataKey{});
    case kStreamsTargetMemberType:
      return mk(StreamsGroupTargetAssignmentMemberKey{});
    case kStreamsCurrentAssignmentType:
      return mk(StreamsGroupCurrentMemberAssignmentKey{});
    case kStreamsTopologyType:
      return gk(StreamsGroupTopologyKey{});
    default:
      return gk(StreamsGroupMetadataKey{});
  }
}

std::optional<std::vector<uint8_t>> encode_streams_value(const StreamsGroupRecord& r) {
  if (r.tombstone) return std::nullopt;
  switch (r.type) {
    case kStreamsMemberMetadataType:
      return member_value(r.member);
    case kStreamsTargetMetadataType: {
      StreamsGroupTargetAssignmentMetadataValue v;
      v.assignment_epoch = r.epoch;
      v.assignment_timestamp = wall_clock_ms();
      return encode_prefixed(0, v, 0);
    }
    case kStreamsTargetMemberType:
      return encode_prefixed(0, streams::target_to_record(r.target), 0);
    case kStreamsCurrentAssignmentType:
      return encode_prefixed(0, streams::member_to_record(r.member.assignment), 0);
    case kStreamsTopologyType:
      return encode_prefixed(0, streams::to_record(r.topology), 0);
    default:
      return group_value(r);
  }
}

StreamsGroupRecord decode_streams_record(int16_t type, ByteReader& kr, std::optional<std::span<const uint8_t>> value) {
  StreamsGroupRecord r;
  r.type = type;
  r.tombstone = !value;
  std::optional<ByteReader> vr;
  if (value) vr.emplace(*value);
  switch (type) {
    case kStreamsMemberMetadataType:
      decode_member_key<StreamsGroupMemberMetadataKey>(r, kr);
      if (vr) decode_member(r, *vr);
      break;
    case kStreamsTargetMetadataType:
      decode_group_key<StreamsGroupTargetAssignmentMetadataKey>(r, kr);
      if (vr) r.epoch = decode_versioned<StreamsGroupTargetAssignmentMetadataValue>(*vr, kStreamsLog).assignment_epoch;
      break;
    case kStreamsTargetMemberType:
      decode_member_key<StreamsGroupTargetAssignmentMemberKey>(r, kr);
      if (vr)
        r.target =
            streams::target_from_record(decode_versioned<StreamsGroupTargetAssignmentMemberValue>(*vr, kStreamsLog));
      break;
    case kStreamsCurrentAssignmentType:
      decode_member_key<StreamsGroupCurrentMemberAssignmentKey>(r, kr);
      if (vr)
        r.member.assignment = streams::member_from_record(
            decode_versioned<StreamsGroupCurrentMemberAssignmentValue>(*vr, kStreamsLog), {});
      break;
    case kStreamsTopologyType:
      decode_group_key<StreamsGroupTopologyKey>(r, kr);
      if (vr) r.topology = streams::from_record(decode_versioned<StreamsGroupTopologyValue>(*vr, kStreamsLog));
      break;
    default:
      decode_group_key<StreamsGroupMetadataKey>(r, kr);
      if (vr) decode_group(r, *vr);
  }
  return r;
}

std::vector<StreamsGroupRecord> streams_records_since(const std::string& g, const StreamsGroupImage& before,
                                                      const StreamsGroup& now) {
  std::vector<StreamsGroupRecord> out;
  for (const auto& [id, m] : before.members) {
    if (now.members.contains(id)) continue;
    for (int16_t type : {kStreamsCurrentAssignmentType, kStreamsTargetMemberType, kStreamsMemberMetadataType})
      out.emplace_back(streams_record(type, g, id)).tombstone = true;
  }
  for (const auto& [id, m] : now.members) {
    auto old = before.members.find(id);
    if (old == before.members.end() || !old->second.same_metadata(m))
      out.emplace_back(streams_record(kStreamsMemberMetadataType, g, id)).member = m;
  }
  if (now.topology && now.topology != before.topology)
    out.emplace_back(streams_record(kStreamsTopologyType, g)).topology = *now.topology;
  if (group_changed(before, now)) out.push_back(group_record(g, now));
  for (const auto& [id, t] : now.targets) {
    auto old = before.targets.find(id);
    if (old != before.targets.end() && old->second == t) continue;
    out.emplace_back(streams_record(kStreamsTargetMemberType, g, id)).target = t;
  }
  if (now.assignment_epoch != before.assignment_epoch)
    out.emplace_back(streams_record(kStreamsTargetMetadataType, g)).epoch = now.assignment_epoch;
  for (const auto& [id, m] : now.members) {
    auto old = before.members.find(id);
    if (old == before.members.end() || old->second.assignment != m.assignment)
      out.emplace_back(streams_record(kStreamsCurrentAssignmentType, g, id)).member = m;
  }
  return out;
}

std::vector<StreamsGroupRecord> streams_group_tombstones(const std::string& g, const StreamsGroup& sg) {
  std::vector<StreamsGroupRecord> out;
  for (const auto& [id, m] : sg.members) out.push_back(streams_record(kStreamsCurrentAssignmentType, g, id));
  for (const auto& [id, m] : sg.members) out.push_back(streams_record(kStreamsTargetMemberType, g, id));
  out.push_back(streams_record(kStreamsTargetMetadataType, g));
  for (const auto& [id, m] : sg.members) out.push_back(streams_record(kStreamsMemberMetadataType, g, id));
  out.push_back(streams_record(kStreamsTopologyType, g));
  out.push_back(streams_record(kStreamsGroupMetadataType, g));
  for (auto& r : out) r.tombstone = true;
  return out;
}

}  // namespace skiff::group
