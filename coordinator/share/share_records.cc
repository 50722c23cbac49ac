#include "coordinator/share/share_records.h"

#include "coordinator/share/generated/share_snapshot_key.h"
#include "coordinator/share/generated/share_snapshot_value.h"
#include "coordinator/share/generated/share_update_key.h"
#include "coordinator/share/generated/share_update_value.h"
#include "protocol/coordinator_record.h"

namespace skiff::sharecoord {
namespace {

using protocol::ShareSnapshotKey;
using protocol::ShareSnapshotValue;
using protocol::ShareUpdateKey;
using protocol::ShareUpdateValue;

template <typename K>
std::vector<uint8_t> encode_key(const Key& key) {
  K k;
  k.group_id = key.group_id;
  k.topic_id = key.topic_id;
  k.partition = key.partition;
  return protocol::encode_prefixed(K::kApiKey, k, 0);
}

template <typename B>
std::vector<B> to_schema(const std::vector<StateBatch>& batches) {
  std::vector<B> out;
  out.reserve(batches.size());
  for (const auto& b : batches) {
    B s;
    s.first_offset = b.first_offset;
    s.last_offset = b.last_offset;
    s.delivery_state = b.delivery_state;
    s.delivery_count = b.delivery_count;
    out.push_back(s);
  }
  return out;
}

template <typename B>
std::vector<StateBatch> from_schema(const std::vector<B>& batches) {
  std::vector<StateBatch> out;
  out.reserve(batches.size());
  for (const auto& b : batches) out.push_back({b.first_offset, b.last_offset, b.delivery_state, b.delivery_count});
  return out;
}

std::vector<uint8_t> encode_snapshot(const ShareState& s) {
  ShareSnapshotValue v;
  v.snapshot_epoch = s.snapshot_epoch;
  v.state_epoch = s.state_epoch;
  v.leader_epoch = s.leader_epoch;
  v.start_offset = s.start_offset;
  v.delivery_complete_count = s.delivery_complete_count;
  v.create_timestamp = s.create_timestamp;
  v.write_timestamp = s.write_timestamp;
  v.state_batches = to_schema<ShareSnapshotValue::StateBatch>(s.batches);
  return protocol::encode_prefixed(0, v, 0);
}

std::vector<uint8_t> encode_update(const ShareState& s) {
  ShareUpdateValue v;
  v.snapshot_epoch = s.snapshot_epoch;
  v.leader_epoch = s.leader_epoch;
  v.start_offset = s.start_offset;
  v.delivery_complete_count = s.delivery_complete_count;
  v.state_batches = to_schema<ShareUpdateValue::StateBatch>(s.batches);
  return protocol::encode_prefixed(0, v, 0);
}

}  // namespace

EncodedRecord encode_share_record(const ShareRecord& r) {
  switch (r.type) {
    case ShareRecord::Type::kSnapshot:
      return {encode_key<ShareSnapshotKey>(r.key), encode_snapshot(r.value)};
    case ShareRecord::Type::kUpdate:
      return {encode_key<ShareUpdateKey>(r.key), encode_update(r.value)};
    case ShareRecord::Type::kTombstone:
      break;
  }
  return {encode_key<ShareSnapshotKey>(r.key), std::nullopt};
}

ShareRecord decode_share_record(std::span<const uint8_t> key, std::optional<std::span<const uint8_t>> value) {
  protocol::ByteReader kr(key);
  const int16_t type = kr.read_int16();
  ShareRecord out;
  if (type == ShareSnapshotKey::kApiKey) {
    ShareSnapshotKey k;
    k.decode(kr, 0);
    out.key = {std::move(k.group_id), k.topic_id, k.partition};
    if (!value) {
      out.type = ShareRecord::Type::kTombstone;
      return out;
    }
    protocol::ByteReader vr(*value);
    const auto v = protocol::decode_versioned<ShareSnapshotValue>(vr, kShareGroupStateTopic);
    out.type = ShareRecord::Type::kSnapshot;
    out.value = {v.snapshot_epoch,          v.state_epoch,      v.leader_epoch,    v.start_offset,
                 v.delivery_complete_count, v.create_timestamp, v.write_timestamp, from_schema(v.state_batches)};
    return out;
  }
  if (type != ShareUpdateKey::kApiKey)
    throw protocol::DecodeError(std::string(kShareGroupStateTopic) + ": unknown key type " + std::to_string(type));
  ShareUpdateKey k;
  k.decode(kr, 0);
  out.key = {std::move(k.group_id), k.topic_id, k.partition};
  if (!value) throw protocol::DecodeError(std::string(kShareGroupStateTopic) + ": ShareUpdate without a value");
  protocol::ByteReader vr(*value);
  const auto v = protocol::decode_versioned<ShareUpdateValue>(vr, kShareGroupStateTopic);
  out.type = ShareRecord::Type::kUpdate;
  out.value.snapshot_epoch = v.snapshot_epoch;
  out.value.leader_epoch = v.leader_epoch;
  out.value.start_offset = v.start_offset;
  out.value.delivery_complete_count = v.delivery_complete_count;
  out.value.batches = from_schema(v.state_batches);
  return out;
}

}  // namespace skiff::sharecoord
