// common/varint.h: the one varint codec shared by record parsing (log/) and
// the protocol codec (protocol/).
#include "common/varint.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <vector>

using namespace skiff;

namespace {

std::vector<uint8_t> zigzag_bytes(int64_t v) {
  std::vector<uint8_t> out;
  write_zigzag(out, v);
  return out;
}

}  // namespace

TEST_CASE("zig-zag maps small magnitudes to small codes", "[common][varint]") {
  CHECK(zigzag_encode(0) == 0);
  CHECK(zigzag_encode(-1) == 1);
  CHECK(zigzag_encode(1) == 2);
  CHECK(zigzag_encode(std::numeric_limits<int64_t>::min()) == std::numeric_limits<uint64_t>::max());
  CHECK(zigzag_encode32(std::numeric_limits<int32_t>::min()) == std::numeric_limits<uint32_t>::max());
  for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{63}, int64_t{-64}, int64_t{1} << 40,
                    std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()}) {
    CHECK(zigzag_decode(zigzag_encode(v)) == v);
    const auto bytes = zigzag_bytes(v);
    CHECK(bytes.size() == zigzag_size(v));
    const uint8_t* p = bytes.data();
    int64_t back = 0;
    REQUIRE(read_varint64(p, bytes.data() + bytes.size(), back));
    CHECK(back == v);
    CHECK(p == bytes.data() + bytes.size());
  }
  for (int32_t v : {0, -1, 1, 8191, -8192, std::numeric_limits<int32_t>::max(), std::numeric_limits<int32_t>::min()})
    CHECK(zigzag_decode32(zigzag_encode32(v)) == v);
}

TEST_CASE("unsigned varints: Kafka's byte layout and sizes", "[common][varint]") {
  uint8_t buf[kMaxVarint64Bytes];
  CHECK(put_uvarint(buf, 501) == 2);  // Kafka's compact length example: 0xf5 0x03
  CHECK(buf[0] == 0xf5);
  CHECK(buf[1] == 0x03);
  CHECK(uvarint_size(0) == 1);
  CHECK(uvarint_size(127) == 1);
  CHECK(uvarint_size(128) == 2);
  CHECK(uvarint_size(std::numeric_limits<uint32_t>::max()) == 5);
  CHECK(uvarint_size(std::numeric_limits<uint64_t>::max()) == 10);
  CHECK(put_uvarint(buf, std::numeric_limits<uint64_t>::max()) == 10);
}

TEST_CASE("decode_uvarint refuses truncated, overlong and too-wide input without moving", "[common][varint]") {
  uint64_t v = 7;
  const std::vector<uint8_t> truncated = {0x80, 0x80};
  const uint8_t* p = truncated.data();
  CHECK(decode_uvarint(p, p + truncated.size(), v, kMaxVarint32Bytes) == VarintStatus::kTruncated);
  CHECK(p == truncated.data());
  CHECK(v == 7);

  const std::vector<uint8_t> max32 = {0xff, 0xff, 0xff, 0xff, 0x0f};
  p = max32.data();
  CHECK(decode_uvarint(p, p + max32.size(), v, kMaxVarint32Bytes) == VarintStatus::kOk);
  CHECK(v == 0xffffffffu);
  const std::vector<uint8_t> over32 = {0xff, 0xff, 0xff, 0xff, 0x1f};
  p = over32.data();
  CHECK(decode_uvarint(p, p + over32.size(), v, kMaxVarint32Bytes) == VarintStatus::kOverflow);
  const std::vector<uint8_t> six(6, 0xff);
  p = six.data();
  CHECK(decode_uvarint(p, p + six.size(), v, kMaxVarint32Bytes) == VarintStatus::kOverflow);

  // The tenth byte of a 64-bit varint carries one bit. log/'s old reader
  // dropped the rest silently and accepted the record.
  std::vector<uint8_t> over64(9, 0xff);
  over64.push_back(0x7f);
  p = over64.data();
  int64_t s = 0;
  CHECK_FALSE(read_varint64(p, over64.data() + over64.size(), s));
  over64.back() = 0x01;
  p = over64.data();
  CHECK(read_varint64(p, over64.data() + over64.size(), s));
  CHECK(s == std::numeric_limits<int64_t>::min());
}

TEST_CASE("record varint32 refuses values beyond int32", "[common][varint]") {
  const auto big = zigzag_bytes(int64_t{1} << 31);  // 5 bytes, 33 bits
  const uint8_t* p = big.data();
  int32_t v = 0;
  CHECK_FALSE(read_varint32(p, big.data() + big.size(), v));
  const auto one = zigzag_bytes(-3);
  p = one.data();
  CHECK(read_varint32(p, one.data() + one.size(), v));
  CHECK(v == -3);
}
