// Malformed input must raise DecodeError (never crash, never allocate for a
// length the input cannot hold); unencodable values raise on encode.
#include <catch2/catch.hpp>

#include "protocol/any_message.h"
#include "protocol/api_table.h"
#include "protocol/generated/join_group_request.h"
#include "protocol/generated/metadata_request.h"
#include "protocol/generated/produce_request.h"
#include "protocol/testing/random_fill.h"

namespace skiff::protocol {
namespace {

template <class T>
void decode_bytes(std::vector<uint8_t> bytes, int16_t version) {
  T message;
  ByteReader r(bytes);
  message.decode(r, version);
}

TEST_CASE("codec: every truncation of a valid body is a DecodeError", "[codec][malformed]") {
  for (const auto& api : all_apis()) {
    for (int16_t version = api.min_version; version <= api.max_version; ++version) {
      for (bool request : {true, false}) {
        testing::FillContext ctx(api.key * 100 + version);
        auto m = request ? make_request(api.key) : make_response(api.key);
        testing::random_fill(*m, ctx, version);
        ByteWriter w;
        m->encode(w, version);
        const auto bytes = w.take_bytes();
        for (size_t len = 0; len < bytes.size(); ++len) {
          INFO(api.name << " v" << version << " truncated to " << len);
          auto fresh = request ? make_request(api.key) : make_response(api.key);
          ByteReader r(std::span<const uint8_t>(bytes.data(), len));
          CHECK_THROWS_AS(fresh->decode(r, version), DecodeError);
        }
      }
    }
  }
}

TEST_CASE("codec: huge or bad lengths and varints are rejected", "[codec][malformed]") {
  using Bytes = std::vector<uint8_t>;
  // Produce v3 header: null transactional id, acks=1, timeout=0.
  const Bytes head = {0xff, 0xff, 0, 1, 0, 0, 0, 0};
  auto with = [&](Bytes tail) {
    Bytes b = head;
    b.insert(b.end(), tail.begin(), tail.end());
    return b;
  };
  CHECK_THROWS_AS(decode_bytes<ProduceRequest>(with({0x7f, 0xff, 0xff, 0xff}), 3), DecodeError);
  // One topic whose name claims 32000 bytes.
  CHECK_THROWS_AS(decode_bytes<ProduceRequest>(with({0, 0, 0, 1, 0x7d, 0x00, 'a'}), 3), DecodeError);
  // Negative lengths other than -1.
  CHECK_THROWS_AS(decode_bytes<ProduceRequest>(with({0, 0, 0, 1, 0xff, 0xfe}), 3), DecodeError);
  CHECK_THROWS_AS(decode_bytes<ProduceRequest>(with({0xff, 0xff, 0xff, 0xfe}), 3), DecodeError);
  // Null topic name: not nullable.
  CHECK_THROWS_AS(decode_bytes<ProduceRequest>(with({0, 0, 0, 1, 0xff, 0xff}), 3), DecodeError);
  // Records claiming 2 GiB.
  CHECK_THROWS_AS(
      decode_bytes<ProduceRequest>(with({0, 0, 0, 1, 0, 1, 't', 0, 0, 0, 1, 0, 0, 0, 0, 0x7f, 0xff, 0xff, 0xff}), 3),
      DecodeError);

  // Metadata v9 (flexible): compact array of a million topics in 3 bytes.
  CHECK_THROWS_AS(decode_bytes<MetadataRequest>({0xc1, 0x84, 0x3d, 0, 0, 0, 0}, 9), DecodeError);
  // Varint of 6 bytes, and a 5-byte varint overflowing 32 bits.
  CHECK_THROWS_AS(decode_bytes<MetadataRequest>({0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 9), DecodeError);
  CHECK_THROWS_AS(decode_bytes<MetadataRequest>({0x80, 0x80, 0x80, 0x80, 0x10}, 9), DecodeError);
  // Tagged section claiming more fields than bytes, and a field overrunning.
  CHECK_THROWS_AS(decode_bytes<MetadataRequest>({0x01, 0, 0, 0, 0x7f}, 9), DecodeError);
  CHECK_THROWS_AS(decode_bytes<MetadataRequest>({0x01, 0, 0, 0, 0x01, 0x05, 0x10, 0x00}, 9), DecodeError);
  // A well-formed body still decodes (guards the vectors above).
  CHECK_NOTHROW(decode_bytes<MetadataRequest>({0x01, 0, 0, 0, 0x01, 0x05, 0x01, 0x00}, 9));
}

TEST_CASE("codec: varint edge cases", "[codec][varint]") {
  const std::vector<uint8_t> max32 = {0xff, 0xff, 0xff, 0xff, 0x0f};
  ByteReader r(max32);
  CHECK(r.read_uvarint() == 0xffffffffu);
  ByteWriter w;
  w.write_uvarint(0xffffffffu);
  w.write_varint(-1);
  w.write_varlong(INT64_MIN);
  const auto out = w.take_bytes();
  ByteReader back(out);
  CHECK(back.read_uvarint() == 0xffffffffu);
  CHECK(back.read_varint() == -1);
  CHECK(back.read_varlong() == INT64_MIN);
  CHECK(back.empty());
  const std::vector<uint8_t> long_varlong(11, 0xff);
  ByteReader bad(long_varlong);
  CHECK_THROWS_AS(bad.read_uvarlong(), DecodeError);
}

TEST_CASE("codec: fields absent in a version follow Kafka's ignorable rule", "[codec][encode]") {
  ByteWriter w;
  SECTION("non-ignorable non-default value throws") {
    ProduceRequest p;
    p.transactional_id = "tx";
    CHECK_THROWS_AS(p.encode(w, 2), UnsupportedVersionError);
    CHECK_NOTHROW(p.encode(w, 3));
  }
  SECTION("default value in a non-ignorable field is fine") {
    ProduceRequest p;
    CHECK_NOTHROW(p.encode(w, 2));
  }
  SECTION("ignorable fields are dropped silently") {
    JoinGroupRequest j;
    j.rebalance_timeout_ms = 5000;  // ignorable, from v1
    j.reason = "because";           // ignorable, from v8
    CHECK_NOTHROW(j.encode(w, 0));
    auto bytes = w.take_bytes();
    JoinGroupRequest back;
    ByteReader r(bytes);
    back.decode(r, 0);
    CHECK(back.rebalance_timeout_ms == -1);
    CHECK_FALSE(back.reason.has_value());
  }
  SECTION("null in a version where the field is not nullable") {
    MetadataRequest m;
    m.topics.reset();  // nullable only from v1
    CHECK_THROWS_AS(m.encode(w, 0), EncodeError);
    CHECK_NOTHROW(m.encode(w, 1));
  }
  SECTION("long strings need a flexible version") {
    MetadataRequest m;
    m.topics->emplace_back().name = std::string(40000, 'x');
    CHECK_THROWS_AS(m.encode(w, 8), EncodeError);
    CHECK_NOTHROW(m.encode(w, 9));
  }
  SECTION("versions outside the valid range") {
    ProduceRequest p;
    CHECK_THROWS_AS(p.encode(w, 14), UnsupportedVersionError);
    std::vector<uint8_t> empty;
    ByteReader r(empty);
    CHECK_THROWS_AS(p.decode(r, -1), UnsupportedVersionError);
  }
}

TEST_CASE("codec: generic entry point rejects unknown keys", "[codec][malformed]") {
  std::vector<uint8_t> empty;
  ByteReader r(empty);
  CHECK_THROWS_AS(decode_request(9999, 0, r), DecodeError);
  CHECK(make_request(4) == nullptr);  // LeaderAndIsr: not served
}

}  // namespace
}  // namespace skiff::protocol

TEST_CASE("codec: arrays that would expand far beyond the input hit the decode budget", "[codec][malformed]") {
  // 100 wire bytes declaring 90 one-byte elements is fine on the wire, but if
  // each decoded element were 1 MiB in memory the budget must stop it.
  std::vector<uint8_t> input(100, 0);
  input[3] = 90;  // int32 count = 90
  skiff::protocol::ByteReader ok(input);
  CHECK(ok.read_array_length(false, 1, 64) == 90);
  skiff::protocol::ByteReader hostile(input);
  CHECK_THROWS_AS(hostile.read_array_length(false, 1, 1 << 20), skiff::protocol::DecodeError);
}
