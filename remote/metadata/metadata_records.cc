// __remote_log_metadata's records: Kafka's AbstractApiMessageSerde framing
// around the generated messages, the conversions between them and
// segment_metadata.h's values, and Kafka's metadata partitioner.
#include "remote/metadata/metadata_records.h"

#include <string>

#include "common/kafka_hash.h"
#include "protocol/byte_reader.h"
#include "protocol/byte_writer.h"
#include "protocol/errors.h"
#include "remote/metadata/generated/remote_log_segment_metadata_record.h"
#include "remote/metadata/generated/remote_log_segment_metadata_snapshot_record.h"
#include "remote/metadata/generated/remote_log_segment_metadata_update_record.h"
#include "remote/metadata/generated/remote_partition_delete_metadata_record.h"

namespace skiff::remote {
namespace {

using protocol::DecodeError;
using SegmentRecord = protocol::RemoteLogSegmentMetadataRecord;
using UpdateRecord = protocol::RemoteLogSegmentMetadataUpdateRecord;
using DeleteRecord = protocol::RemotePartitionDeleteMetadataRecord;
using SnapshotRecord = protocol::RemoteLogSegmentMetadataSnapshotRecord;

constexpr uint32_t kFrameVersion = 1;  // AbstractApiMessageSerde's DEFAULT_FRAME_VERSION
constexpr int16_t kVersion = 0;        // every record's only version

std::optional<std::vector<uint8_t>> to_bytes(const std::optional<std::string>& s) {
  if (!s) return std::nullopt;
  return std::vector<uint8_t>(s->begin(), s->end());
}

std::optional<std::string> to_string(const std::optional<std::vector<uint8_t>>& b) {
  if (!b) return std::nullopt;
  return std::string(b->begin(), b->end());
}

SegmentState segment_state(int8_t id) {
  if (id < 0 || id > static_cast<int8_t>(SegmentState::kDeleteFinished))
    throw DecodeError("__remote_log_metadata: unknown RemoteLogSegmentState id " + std::to_string(id));
  return static_cast<SegmentState>(id);
}

PartitionDeleteState delete_state(int8_t id) {
  if (id < 0 || id > static_cast<int8_t>(PartitionDeleteState::kFinished))
    throw DecodeError("__remote_log_metadata: unknown RemotePartitionDeleteState id " + std::to_string(id));
  return static_cast<PartitionDeleteState>(id);
}

template <typename Entry>
Entry partition_entry(const TopicIdPartition& tp) {
  Entry e;
  e.name = tp.topic;
  e.id = tp.topic_id;
  e.partition = tp.partition;
  return e;
}

template <typename Entry>
TopicIdPartition from_entry(const Entry& e) {
  return TopicIdPartition{e.id, e.name, e.partition};
}

template <typename Entry>
Entry segment_id_entry(const RemoteLogSegmentId& id) {
  Entry e;
  e.topic_id_partition = partition_entry<decltype(e.topic_id_partition)>(id.partition);
  e.id = id.id;
  return e;
}

template <typename Entry>
RemoteLogSegmentId from_entry_id(const Entry& e) {
  return RemoteLogSegmentId{from_entry(e.topic_id_partition), e.id};
}

// The fields a segment record and a snapshot record share.
template <typename R>
void fill_segment(R& r, const RemoteLogSegmentMetadata& m) {
  r.start_offset = m.start_offset;
  r.end_offset = m.end_offset;
  r.broker_id = m.broker_id;
  r.max_timestamp_ms = m.max_timestamp_ms;
  r.event_timestamp_ms = m.event_timestamp_ms;
  for (auto [epoch, offset] : m.segment_leader_epochs) {
    typename R::SegmentLeaderEpochEntry e;
    e.leader_epoch = epoch;
    e.offset = offset;
    r.segment_leader_epochs.push_back(e);
  }
  r.segment_size_in_bytes = m.segment_size_in_bytes;
  r.custom_metadata = to_bytes(m.custom_metadata);
  r.remote_log_segment_state = static_cast<int8_t>(m.state);
  r.txn_index_empty = m.txn_index_empty;
}

template <typename R>
RemoteLogSegmentMetadata read_segment(const R& r) {
  RemoteLogSegmentMetadata m;
  m.start_offset = r.start_offset;
  m.end_offset = r.end_offset;
  m.broker_id = r.broker_id;
  m.max_timestamp_ms = r.max_timestamp_ms;
  m.event_timestamp_ms = r.event_timestamp_ms;
  for (const auto& e : r.segment_leader_epochs) m.segment_leader_epochs[e.leader_epoch] = e.offset;
  m.segment_size_in_bytes = r.segment_size_in_bytes;
  m.custom_metadata = to_string(r.custom_metadata);
  m.state = segment_state(r.remote_log_segment_state);
  m.txn_index_empty = r.txn_index_empty;
  return m;
}

template <typename M>
std::vector<uint8_t> framed(const M& m) {
  protocol::ByteWriter w(3 + m.encoded_size(kVersion));
  w.write_uvarint(kFrameVersion);
  w.write_uvarint(static_cast<uint32_t>(M::kApiKey));
  w.write_uvarint(static_cast<uint32_t>(kVersion));
  m.encode(w, kVersion);
  return w.take_bytes();
}

struct Encoder {
  std::vector<uint8_t> operator()(const RemoteLogSegmentMetadata& m) const {
    SegmentRecord r;
    r.remote_log_segment_id = segment_id_entry<SegmentRecord::RemoteLogSegmentIdEntry>(m.id);
    fill_segment(r, m);
    return framed(r);
  }
  std::vector<uint8_t> operator()(const SegmentUpdate& u) const {
    UpdateRecord r;
    r.remote_log_segment_id = segment_id_entry<UpdateRecord::RemoteLogSegmentIdEntry>(u.id);
    r.broker_id = u.broker_id;
    r.event_timestamp_ms = u.event_timestamp_ms;
    r.custom_metadata = to_bytes(u.custom_metadata);
    r.remote_log_segment_state = static_cast<int8_t>(u.state);
    return framed(r);
  }
  std::vector<uint8_t> operator()(const PartitionDelete& d) const {
    DeleteRecord r;
    r.topic_id_partition = partition_entry<DeleteRecord::TopicIdPartitionEntry>(d.partition);
    r.broker_id = d.broker_id;
    r.event_timestamp_ms = d.event_timestamp_ms;
    r.remote_partition_delete_state = static_cast<int8_t>(d.state);
    return framed(r);
  }
  std::vector<uint8_t> operator()(const SegmentSnapshot& s) const {
    SnapshotRecord r;
    r.segment_id = s.segment.id.id;
    fill_segment(r, s.segment);
    return framed(r);
  }
};

MetadataRecord decode_message(int16_t api_key, protocol::ByteReader& in) {
  switch (api_key) {
    case SegmentRecord::kApiKey: {
      SegmentRecord r;
      r.decode(in, kVersion);
      RemoteLogSegmentMetadata m = read_segment(r);
      m.id = from_entry_id(r.remote_log_segment_id);
      return m;
    }
    case UpdateRecord::kApiKey: {
      UpdateRecord r;
      r.decode(in, kVersion);
      return SegmentUpdate{from_entry_id(r.remote_log_segment_id), r.event_timestamp_ms, to_string(r.custom_metadata),
                           segment_state(r.remote_log_segment_state), r.broker_id};
    }
    case DeleteRecord::kApiKey: {
      DeleteRecord r;
      r.decode(in, kVersion);
      return PartitionDelete{from_entry(r.topic_id_partition), delete_state(r.remote_partition_delete_state),
                             r.event_timestamp_ms, r.broker_id};
    }
    case SnapshotRecord::kApiKey: {
      SnapshotRecord r;
      r.decode(in, kVersion);
      SegmentSnapshot s{read_segment(r)};
      s.segment.id.id = r.segment_id;
      return s;
    }
    default:
      throw DecodeError("__remote_log_metadata: unknown record api key " + std::to_string(api_key));
  }
}

int32_t java_long_hash(uint64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(v ^ (v >> 32))); }

uint64_t be64(const Uuid& u, size_t at) {
  uint64_t v = 0;
  for (size_t i = 0; i < 8; ++i) v = v << 8 | u.bytes[at + i];
  return v;
}

}  // namespace

std::vector<uint8_t> encode_metadata_record(const MetadataRecord& record) { return std::visit(Encoder{}, record); }

MetadataRecord decode_metadata_record(std::span<const uint8_t> value) {
  protocol::ByteReader in(value);
  const uint32_t frame = in.read_uvarint();
  if (frame != kFrameVersion)
    throw DecodeError("__remote_log_metadata: frame version " + std::to_string(frame) + " (Kafka writes 1)");
  const uint32_t api_key = in.read_uvarint();
  const uint32_t version = in.read_uvarint();
  if (api_key > 0x7fff) throw DecodeError("__remote_log_metadata: unknown record api key " + std::to_string(api_key));
  if (version != static_cast<uint32_t>(kVersion))
    throw DecodeError("__remote_log_metadata: record api key " + std::to_string(api_key) + " has version " +
                      std::to_string(version) + " (Kafka 4.4 knows 0)");
  MetadataRecord out = decode_message(static_cast<int16_t>(api_key), in);
  if (!in.empty())
    throw DecodeError("__remote_log_metadata: " + std::to_string(in.remaining()) + " byte(s) after the record");
  return out;
}

int32_t metadata_partition(const TopicIdPartition& tp, int32_t partitions) {
  // Java's Objects.hash(Long lsb, Long msb, Integer partition), in int32 arithmetic.
  uint32_t h = 1;
  h = 31 * h + static_cast<uint32_t>(java_long_hash(be64(tp.topic_id, 8)));
  h = 31 * h + static_cast<uint32_t>(java_long_hash(be64(tp.topic_id, 0)));
  h = 31 * h + static_cast<uint32_t>(tp.partition);
  const char bytes[4] = {static_cast<char>(h >> 24), static_cast<char>(h >> 16), static_cast<char>(h >> 8),
                         static_cast<char>(h)};
  const auto positive = static_cast<uint32_t>(kafka_murmur2(std::string_view(bytes, 4))) & 0x7fffffffu;
  return static_cast<int32_t>(positive % static_cast<uint32_t>(partitions));
}

std::string describe(const TopicIdPartition& tp) {
  return tp.topic + "-" + std::to_string(tp.partition) + " (" + tp.topic_id.to_string() + ")";
}

std::string describe(const RemoteLogSegmentId& id) {
  return "segment " + id.id.to_string() + " of " + describe(id.partition);
}

}  // namespace skiff::remote
