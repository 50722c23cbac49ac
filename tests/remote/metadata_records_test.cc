// __remote_log_metadata's records and partitioner against Kafka 4.4.0's own
// RemoteLogMetadataSerde and RemoteLogMetadataTopicPartitioner: the vectors
// below are the output of tests/remote/kafka/RemoteLogMetadataVectors.java
// (how to regenerate: its header), run against the kafka-storage and
// kafka-clients 4.4.0 jars. Also the state machines against Kafka's
// isValidTransition (the same program), and hostile input.
#include "remote/metadata/metadata_records.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "protocol/errors.h"

using namespace skiff;
using namespace skiff::remote;

namespace records_test {

// Kafka's output, pasted.
const char* const kSegmentCopyStarted =
    "010000076f7264657273000102030405060708090a0b0c0d0e0f0000000700101112131415161718191a1b1c1d1e1f00"
    "000000000000006400000000000000c7000000010000018bcfe5687b0000018bcfe569c8030000000000000000000000"
    "64000000000300000000000000960000100000000000";
const char* const kSegmentTxnCustom =
    "010000076f7264657273000102030405060708090a0b0c0d0e0f0000000700101112131415161718191a1b1c1d1e1f00"
    "000000000000006400000000000000c7000000010000018bcfe5687b0000018bcfe569c8030000000000000000000000"
    "64000000000300000000000000960000100000040102030001000101";
const char* const kUpdateCopyFinished =
    "010100076f7264657273000102030405060708090a0b0c0d0e0f0000000700101112131415161718191a1b1c1d1e1f00"
    "000000010000018bcfe56b1503cafe0100";
const char* const kUpdateDeleteStarted =
    "010100076f7264657273000102030405060708090a0b0c0d0e0f0000000700101112131415161718191a1b1c1d1e1f00"
    "000000010000018bcfe56be7000200";
const char* const kPartitionDeleteMarked =
    "010200076f7264657273000102030405060708090a0b0c0d0e0f0000000700000000010000018bcfe56be80000";
const char* const kSnapshot =
    "010300101112131415161718191a1b1c1d1e1f000000000000006400000000000000c7000000010000018bcfe5687b00"
    "00018bcfe56b1503000000000000000000000064000000000300000000000000960000100000000100";
// isValidTransition(from, to) for from in (null, 0..3) and to in 0..3, row by row.
const char* const kSegmentTransitions = "10001110011000110001";
const char* const kPartitionDeleteTransitions = "100110011001";

struct PartitionVector {
  const char* topic_id;
  int32_t partition;
  int32_t of_50;
  int32_t of_7;
};
const PartitionVector kPartitions[] = {
    {"AAECAwQFBgcICQoLDA0ODw", 0, 45, 6},    {"AAECAwQFBgcICQoLDA0ODw", 1, 3, 1},
    {"AAECAwQFBgcICQoLDA0ODw", 7, 45, 6},    {"AAECAwQFBgcICQoLDA0ODw", 49, 49, 1},
    {"AAECAwQFBgcICQoLDA0ODw", 1000, 38, 3}, {"AAECAwQFBgcICQoLDA0ODw", 2147483647, 37, 5},
    {"ZmT3eUqBR0ubrRdG7Zf6ug", 0, 21, 5},    {"ZmT3eUqBR0ubrRdG7Zf6ug", 1, 43, 0},
    {"ZmT3eUqBR0ubrRdG7Zf6ug", 7, 9, 1},     {"ZmT3eUqBR0ubrRdG7Zf6ug", 49, 12, 0},
    {"ZmT3eUqBR0ubrRdG7Zf6ug", 1000, 23, 0}, {"ZmT3eUqBR0ubrRdG7Zf6ug", 2147483647, 43, 5},
    {"_____________________w", 0, 6, 2},     {"_____________________w", 1, 30, 2},
    {"_____________________w", 7, 31, 6},    {"_____________________w", 49, 8, 0},
    {"_____________________w", 1000, 20, 2}, {"_____________________w", 2147483647, 10, 5},
    {"AAAAAAAAAAAAAAAAAAAAAQ", 0, 35, 0},    {"AAAAAAAAAAAAAAAAAAAAAQ", 1, 6, 1},
    {"AAAAAAAAAAAAAAAAAAAAAQ", 7, 46, 2},    {"AAAAAAAAAAAAAAAAAAAAAQ", 49, 43, 1},
    {"AAAAAAAAAAAAAAAAAAAAAQ", 1000, 27, 6}, {"AAAAAAAAAAAAAAAAAAAAAQ", 2147483647, 45, 6}};

std::vector<uint8_t> from_hex(std::string_view hex) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back(static_cast<uint8_t>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  return out;
}

Uuid uuid(const char* base64) {
  auto u = Uuid::parse(base64);
  REQUIRE(u.has_value());
  return *u;
}

TopicIdPartition orders7() { return TopicIdPartition{uuid("AAECAwQFBgcICQoLDA0ODw"), "orders", 7}; }
RemoteLogSegmentId segment_id() { return RemoteLogSegmentId{orders7(), uuid("EBESExQVFhcYGRobHB0eHw")}; }

// The segment the Java program serialises.
RemoteLogSegmentMetadata segment() {
  RemoteLogSegmentMetadata m;
  m.id = segment_id();
  m.start_offset = 100;
  m.end_offset = 199;
  m.max_timestamp_ms = 1700000000123;
  m.broker_id = 1;
  m.event_timestamp_ms = 1700000000456;
  m.segment_leader_epochs = {{0, 100}, {3, 150}};
  m.segment_size_in_bytes = 1048576;
  m.state = SegmentState::kCopyStarted;
  return m;
}

bool same(const RemoteLogSegmentMetadata& a, const RemoteLogSegmentMetadata& b) {
  return a.id == b.id && a.id.partition.topic == b.id.partition.topic && a.start_offset == b.start_offset &&
         a.end_offset == b.end_offset && a.max_timestamp_ms == b.max_timestamp_ms && a.broker_id == b.broker_id &&
         a.event_timestamp_ms == b.event_timestamp_ms && a.segment_leader_epochs == b.segment_leader_epochs &&
         a.segment_size_in_bytes == b.segment_size_in_bytes && a.custom_metadata == b.custom_metadata &&
         a.state == b.state && a.txn_index_empty == b.txn_index_empty;
}

}  // namespace records_test
using namespace records_test;

TEST_CASE("metadata records: a segment is written as Kafka's serde writes it, and read back", "[remote][metadata]") {
  RemoteLogSegmentMetadata m = segment();
  SECTION("plain") {
    CHECK(encode_metadata_record(m) == from_hex(kSegmentCopyStarted));
    auto back = decode_metadata_record(from_hex(kSegmentCopyStarted));
    REQUIRE(std::holds_alternative<RemoteLogSegmentMetadata>(back));
    CHECK(same(std::get<RemoteLogSegmentMetadata>(back), m));
  }
  SECTION("custom metadata and an empty transaction index (tagged field 0)") {
    m.custom_metadata = std::string("\x01\x02\x03", 3);
    m.txn_index_empty = true;
    CHECK(encode_metadata_record(m) == from_hex(kSegmentTxnCustom));
    auto back = decode_metadata_record(from_hex(kSegmentTxnCustom));
    REQUIRE(std::holds_alternative<RemoteLogSegmentMetadata>(back));
    CHECK(same(std::get<RemoteLogSegmentMetadata>(back), m));
  }
}

TEST_CASE("metadata records: updates, partition deletes and snapshots match Kafka's bytes", "[remote][metadata]") {
  SegmentUpdate finished{segment_id(), 1700000000789, std::string("\xca\xfe", 2), SegmentState::kCopyFinished, 1};
  CHECK(encode_metadata_record(finished) == from_hex(kUpdateCopyFinished));
  auto u = std::get<SegmentUpdate>(decode_metadata_record(from_hex(kUpdateCopyFinished)));
  CHECK(u.id == finished.id);
  CHECK(u.id.partition.topic == "orders");
  CHECK(u.event_timestamp_ms == 1700000000789);
  CHECK(u.custom_metadata == finished.custom_metadata);
  CHECK(u.state == SegmentState::kCopyFinished);
  CHECK(u.broker_id == 1);

  SegmentUpdate deleting{segment_id(), 1700000000999, std::nullopt, SegmentState::kDeleteStarted, 1};
  CHECK(encode_metadata_record(deleting) == from_hex(kUpdateDeleteStarted));
  CHECK_FALSE(std::get<SegmentUpdate>(decode_metadata_record(from_hex(kUpdateDeleteStarted))).custom_metadata);

  PartitionDelete marked{orders7(), PartitionDeleteState::kMarked, 1700000001000, 1};
  CHECK(encode_metadata_record(marked) == from_hex(kPartitionDeleteMarked));
  auto d = std::get<PartitionDelete>(decode_metadata_record(from_hex(kPartitionDeleteMarked)));
  CHECK(d.partition == orders7());
  CHECK(d.state == PartitionDeleteState::kMarked);
  CHECK(d.event_timestamp_ms == 1700000001000);

  SegmentSnapshot snap{segment()};
  snap.segment.id.partition = {};
  snap.segment.event_timestamp_ms = 1700000000789;
  snap.segment.state = SegmentState::kCopyFinished;
  CHECK(encode_metadata_record(snap) == from_hex(kSnapshot));
  auto s = std::get<SegmentSnapshot>(decode_metadata_record(from_hex(kSnapshot)));
  CHECK(same(s.segment, snap.segment));
}

TEST_CASE("metadata records: the partitioner is Kafka's", "[remote][metadata]") {
  for (const auto& v : kPartitions) {
    CAPTURE(v.topic_id, v.partition);
    TopicIdPartition tp{uuid(v.topic_id), "t", v.partition};
    CHECK(metadata_partition(tp, 50) == v.of_50);
    CHECK(metadata_partition(tp, 7) == v.of_7);
  }
}

TEST_CASE("metadata records: the state machines are Kafka's isValidTransition", "[remote][metadata]") {
  for (int to = 0; to < 4; ++to)  // from null: only a new segment, which must be COPY_SEGMENT_STARTED
    CHECK((kSegmentTransitions[to] == '1') == (to == static_cast<int>(SegmentState::kCopyStarted)));
  for (int from = 0; from < 4; ++from)
    for (int to = 0; to < 4; ++to) {
      CAPTURE(from, to);
      CHECK(is_valid_transition(static_cast<SegmentState>(from), static_cast<SegmentState>(to)) ==
            (kSegmentTransitions[(from + 1) * 4 + to] == '1'));
    }
  for (int from = -1; from < 3; ++from)
    for (int to = 0; to < 3; ++to) {
      CAPTURE(from, to);
      const auto f = from < 0 ? std::nullopt : std::optional(static_cast<PartitionDeleteState>(from));
      CHECK(is_valid_transition(f, static_cast<PartitionDeleteState>(to)) ==
            (kPartitionDeleteTransitions[(from + 1) * 3 + to] == '1'));
    }
}

TEST_CASE("metadata records: bad input is a DecodeError, never a crash", "[remote][metadata]") {
  const auto good = from_hex(kSegmentTxnCustom);
  for (size_t n = 0; n < good.size(); ++n) {  // every truncation
    CAPTURE(n);
    CHECK_THROWS_AS(decode_metadata_record(std::span(good.data(), n)), protocol::DecodeError);
  }
  auto with = [&](size_t at, uint8_t byte) {
    auto b = good;
    b[at] = byte;
    return b;
  };
  CHECK_THROWS_WITH(decode_metadata_record(with(0, 0)), Catch::Contains("frame version 0"));
  CHECK_THROWS_WITH(decode_metadata_record(with(1, 9)), Catch::Contains("unknown record api key 9"));
  CHECK_THROWS_WITH(decode_metadata_record(with(2, 1)), Catch::Contains("version 1"));
  auto trailing = good;
  trailing.push_back(0);
  CHECK_THROWS_WITH(decode_metadata_record(trailing), Catch::Contains("after the record"));
  auto bad_state = from_hex(kUpdateDeleteStarted);
  bad_state[bad_state.size() - 2] = 7;  // the state byte, before the empty tagged fields
  CHECK_THROWS_WITH(decode_metadata_record(bad_state), Catch::Contains("unknown RemoteLogSegmentState id 7"));
  // Every single-byte change either decodes or throws DecodeError.
  for (size_t at = 0; at < good.size(); ++at)
    for (int v : {0x00, 0x7f, 0x80, 0xff}) {
      try {
        (void)decode_metadata_record(with(at, static_cast<uint8_t>(v)));
      } catch (const protocol::DecodeError&) {
      }
    }
}
