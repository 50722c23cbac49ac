#include "log/record_batch.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <random>
#include <string>

#include "common/byte_order.h"
#include "log/batch_builder.h"
#include "log/crc32c.h"

using namespace skiff;
using namespace skiff::storage;
namespace bl = skiff::storage::batch_layout;

TEST_CASE("crc32c known vectors, hardware and portable agree", "[log][crc]") {
  const std::string s = "123456789";
  auto* p = reinterpret_cast<const uint8_t*>(s.data());
  CHECK(crc32c(p, s.size()) == 0xE3069283u);
  CHECK(crc32c_extend_portable(0, p, s.size()) == 0xE3069283u);
  std::vector<uint8_t> zeros(32, 0);
  CHECK(crc32c(zeros.data(), zeros.size()) == 0x8A9136AAu);
  std::mt19937 rng(7);
  for (int i = 0; i < 200; ++i) {
    std::vector<uint8_t> buf(i % 4 == 0 ? rng() % 200000 : rng() % 3000);  // large ones use the 3-way path
    for (auto& b : buf) b = static_cast<uint8_t>(rng());
    size_t split = buf.empty() ? 0 : rng() % buf.size();
    uint32_t whole = crc32c_extend_portable(0, buf.data(), buf.size());
    CHECK(crc32c(buf.data(), buf.size()) == whole);
    CHECK(crc32c_extend(crc32c_extend(0, buf.data(), split), buf.data() + split, buf.size() - split) == whole);
    // Unaligned start.
    if (buf.size() > 3)
      CHECK(crc32c(buf.data() + 3, buf.size() - 3) == crc32c_extend_portable(0, buf.data() + 3, buf.size() - 3));
  }
}

TEST_CASE("builder makes a valid batch whose records iterate back", "[log][batch]") {
  BatchBuilder b;
  BuilderRecord r1{std::string("k1"), std::string("v1"), 1000, {{"h", std::string("x")}, {"n", std::nullopt}}};
  b.add(r1);
  b.add(std::nullopt, std::string_view("value-2"), 1005);
  b.add(std::string_view("k3"), std::nullopt, 1003);
  auto bytes = b.build();
  RecordBatchView v(bytes);
  REQUIRE(v.validate_records_deep());
  CHECK(v.magic() == 2);
  CHECK(v.record_count() == 3);
  CHECK(v.last_offset_delta() == 2);
  CHECK(v.base_timestamp() == 1000);
  CHECK(v.max_timestamp() == 1005);
  CHECK(v.producer_id() == -1);
  CHECK(v.batch_length() == static_cast<int32_t>(bytes.size() - 12));
  CHECK(v.compression() == Compression::kNone);

  RecordIterator it(v);
  RecordView rec;
  REQUIRE(it.next(rec));
  CHECK(std::string(rec.key->begin(), rec.key->end()) == "k1");
  CHECK(std::string(rec.value->begin(), rec.value->end()) == "v1");
  CHECK(rec.timestamp(v) == 1000);
  CHECK(rec.header_count == 2);
  HeaderIterator hi(rec);
  RecordHeaderView h;
  REQUIRE(hi.next(h));
  CHECK(std::string(h.key.begin(), h.key.end()) == "h");
  REQUIRE(h.value);
  REQUIRE(hi.next(h));
  CHECK(!h.value);
  CHECK(!hi.next(h));
  REQUIRE(it.next(rec));
  CHECK(!rec.key);
  CHECK(rec.offset_delta == 1);
  CHECK(rec.timestamp(v) == 1005);
  REQUIRE(it.next(rec));
  CHECK(!rec.value);
  CHECK(!it.next(rec));
  CHECK(it.ok());
}

TEST_CASE("in-place offset and epoch rewrite keeps the CRC valid", "[log][batch]") {
  auto bytes = make_test_batch(5, 100, 42);
  RecordBatchView v(bytes);
  uint32_t crc = v.crc();
  v.set_base_offset(123456789);
  v.set_partition_leader_epoch(7);
  CHECK(v.crc() == crc);
  CHECK(v.validate_for_append());
  CHECK(v.base_offset() == 123456789);
  CHECK(v.last_offset() == 123456793);
  CHECK(v.partition_leader_epoch() == 7);
}

TEST_CASE("LogAppendTime rewrite recomputes the CRC", "[log][batch]") {
  auto bytes = make_test_batch(3, 10, 42);
  RecordBatchView v(bytes);
  v.set_log_append_time(99999);
  CHECK(v.validate_for_append());
  CHECK(v.timestamp_type() == TimestampType::kLogAppendTime);
  CHECK(v.max_timestamp() == 99999);
  RecordIterator it(v);
  RecordView r;
  REQUIRE(it.next(r));
  CHECK(r.timestamp(v) == 99999);
}

TEST_CASE("validation rejects bad batches with distinct errors", "[log][batch]") {
  auto good = make_test_batch(4, 20, 1);
  SECTION("bad CRC") {
    auto b = good;
    b[b.size() - 1] ^= 0x01;
    CHECK(RecordBatchView(b).validate_for_append().error == LogErrc::kCorruptMessage);
  }
  SECTION("short batch") {
    std::vector<uint8_t> b(good.begin(), good.begin() + 40);
    CHECK(RecordBatchView(b).validate_for_append().error == LogErrc::kCorruptMessage);
    BatchIterator it(b);
    RecordBatchView v;
    CHECK(!it.next(v));
    CHECK(it.error().error == LogErrc::kCorruptMessage);
  }
  SECTION("length field disagrees with size") {
    auto b = good;
    b.push_back(0);
    CHECK(RecordBatchView(b).validate_for_append().error == LogErrc::kCorruptMessage);
  }
  SECTION("inconsistent record count (CRC fixed up)") {
    auto b = good;
    store_be32(b.data() + bl::kRecordCount, 5);
    store_be32(b.data() + bl::kCrc, crc32c(b.data() + bl::kAttributes, b.size() - bl::kAttributes));
    CHECK(RecordBatchView(b).validate_for_append().error == LogErrc::kInvalidRecord);
  }
  SECTION("last offset delta disagrees with count") {
    auto b = good;
    store_be32(b.data() + bl::kLastOffsetDelta, 9);
    store_be32(b.data() + bl::kCrc, crc32c(b.data() + bl::kAttributes, b.size() - bl::kAttributes));
    CHECK(RecordBatchView(b).validate_for_append().error == LogErrc::kInvalidRecord);
  }
  SECTION("old magic is unsupported, unknown magic is corrupt") {
    auto b = good;
    b[bl::kMagic] = 1;
    CHECK(RecordBatchView(b).validate_for_append().error == LogErrc::kUnsupportedForMessageFormat);
    b[bl::kMagic] = 3;
    CHECK(RecordBatchView(b).validate_for_append().error == LogErrc::kCorruptMessage);
  }
  SECTION("malformed record framing") {
    auto b = good;
    b[bl::kHeaderSize] = 0x7E;  // first record's length varint now lies
    store_be32(b.data() + bl::kCrc, crc32c(b.data() + bl::kAttributes, b.size() - bl::kAttributes));
    CHECK(RecordBatchView(b).validate_header_and_crc());
    CHECK(RecordBatchView(b).validate_for_append().error == LogErrc::kInvalidRecord);
  }
  SECTION("malformed field inside a well-framed record: only the deep check parses fields") {
    auto b = make_test_batch(2, 10, 1);
    // First record: length varint (1 byte), attributes, timestamp delta (1
    // byte), then its offset delta, which must be 0.
    b[bl::kHeaderSize + 3] = 0x04;  // offset delta 2
    store_be32(b.data() + bl::kCrc, crc32c(b.data() + bl::kAttributes, b.size() - bl::kAttributes));
    CHECK(RecordBatchView(b).validate_for_append());
    CHECK(RecordBatchView(b).validate_records_deep().error == LogErrc::kInvalidRecord);
  }
}

TEST_CASE("batch iterator splits a payload of several batches", "[log][batch]") {
  std::vector<uint8_t> payload;
  for (int i = 0; i < 5; ++i) {
    auto b = make_test_batch(i + 1, 30, 100 + i, i);
    payload.insert(payload.end(), b.begin(), b.end());
  }
  BatchIterator it(payload);
  RecordBatchView v;
  int n = 0;
  while (it.next(v)) {
    CHECK(v.validate_for_append());
    CHECK(v.record_count() == n + 1);
    ++n;
  }
  CHECK(n == 5);
  CHECK(it.error());
  payload.resize(payload.size() - 3);
  BatchIterator it2(payload);
  n = 0;
  while (it2.next(v)) ++n;
  CHECK(n == 4);
  CHECK(it2.error().error == LogErrc::kCorruptMessage);
}
