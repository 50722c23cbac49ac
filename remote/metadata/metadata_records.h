// The records of __remote_log_metadata, byte for byte as Kafka 4.4's
// RemoteLogMetadataSerde writes them, and the metadata partition a user
// partition's records go to (Kafka's RemoteLogMetadataTopicPartitioner).
//
// A record's key is null; its value is the framing of Kafka's
// AbstractApiMessageSerde then the message (generated from
// remote/metadata/schemas, vendored from the kafka-storage jar):
//   uvarint frame version (1) | uvarint api key | uvarint version (0) | message
// with api keys 0 RemoteLogSegmentMetadataRecord (a segment, always
// COPY_SEGMENT_STARTED when written), 1 RemoteLogSegmentMetadataUpdateRecord
// (a segment's later state), 2 RemotePartitionDeleteMetadataRecord (a
// partition's delete state) and 3 RemoteLogSegmentMetadataSnapshotRecord
// (a segment's whole metadata without its partition: Kafka writes it only to
// its snapshot files, never to the topic). Every message is flexible
// (compact strings, tagged fields); TxnIndexEmpty is tagged field 0.
// Pinned against Kafka's own serde by tests/remote/metadata_records_test.cc.
//
// Threads: pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <variant>
#include <vector>

#include "remote/metadata/segment_metadata.h"

namespace skiff::remote {

// Kafka's RemoteLogSegmentMetadataUpdate: a segment's next state.
struct SegmentUpdate {
  RemoteLogSegmentId id;
  int64_t event_timestamp_ms = 0;
  std::optional<std::string> custom_metadata;
  SegmentState state = SegmentState::kCopyFinished;
  int32_t broker_id = 0;
};

// Kafka's RemotePartitionDeleteMetadata.
struct PartitionDelete {
  TopicIdPartition partition;
  PartitionDeleteState state = PartitionDeleteState::kMarked;
  int64_t event_timestamp_ms = 0;
  int32_t broker_id = 0;
};

// Kafka's RemoteLogSegmentMetadataSnapshot: `segment` with only id.id set
// of its RemoteLogSegmentId (the record has no partition).
struct SegmentSnapshot {
  RemoteLogSegmentMetadata segment;
};

using MetadataRecord = std::variant<RemoteLogSegmentMetadata, SegmentUpdate, PartitionDelete, SegmentSnapshot>;

// The record value Kafka's RemoteLogMetadataSerde.serialize writes.
std::vector<uint8_t> encode_metadata_record(const MetadataRecord& record);
// Its inverse. Throws protocol::DecodeError on a frame version other than 1,
// an unknown api key, a version other than 0, an unknown state id, bytes
// that do not decode or trailing bytes.
MetadataRecord decode_metadata_record(std::span<const uint8_t> value);

// The __remote_log_metadata partition of `tp`'s records when the topic has
// `partitions` partitions (> 0): Kafka's RemoteLogMetadataTopicPartitioner,
// toPositive(murmur2(be32(Objects.hash(lsb(id), msb(id), partition)))) % partitions.
int32_t metadata_partition(const TopicIdPartition& tp, int32_t partitions);

// "orders-7 (AAECAwQFBgcICQoLDA0ODw)" for log lines and errors.
std::string describe(const TopicIdPartition& tp);
std::string describe(const RemoteLogSegmentId& id);

}  // namespace skiff::remote
