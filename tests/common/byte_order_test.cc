// common/byte_order.h: the one big-endian load/store for log/, protocol/,
// network/ and server/.
#include "common/byte_order.h"

#include <catch2/catch.hpp>
#include <cstdint>

using namespace skiff;

TEST_CASE("big-endian loads and stores put the most significant byte first", "[common][byte_order]") {
  uint8_t b[8] = {};
  store_be32(b, 0x01020304u);
  CHECK((b[0] == 1 && b[1] == 2 && b[2] == 3 && b[3] == 4));
  CHECK(load_be32(b) == 0x01020304u);
  store_be16(b, 0xbeef);
  CHECK((b[0] == 0xbe && b[1] == 0xef));
  CHECK(load_be16(b) == 0xbeef);
  store_be64(b, 0x0102030405060708ull);
  CHECK((b[0] == 1 && b[7] == 8));
  CHECK(load_be64(b) == 0x0102030405060708ull);
  store_be<int32_t>(b, -2);
  CHECK((b[0] == 0xff && b[3] == 0xfe));
  CHECK(load_be<int32_t>(b) == -2);  // a frame size read as signed, as network/ does
  CHECK(to_big_endian(from_big_endian(uint16_t{0x1234})) == 0x1234);
}
