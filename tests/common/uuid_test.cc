// common/uuid.h: the one Uuid, stored by log/ and carried by the protocol.
#include "common/uuid.h"

#include <catch2/catch.hpp>
#include <set>
#include <type_traits>

#include "protocol/types.h"

using skiff::Uuid;

TEST_CASE("Uuid prints and parses Kafka's 22-character base64", "[common][uuid]") {
  Uuid u;
  for (size_t i = 0; i < u.bytes.size(); ++i) u.bytes[i] = static_cast<uint8_t>(i * 17);
  const std::string s = u.to_string();
  CHECK(s.size() == 22);
  CHECK(s == "ABEiM0RVZneImaq7zN3u_w");  // org.apache.kafka.common.Uuid of the same bytes
  REQUIRE(Uuid::parse(s).has_value());
  CHECK(*Uuid::parse(s) == u);
  CHECK_FALSE(Uuid::parse("short").has_value());
  CHECK_FALSE(Uuid::parse("ABEiM0RVZneImaq7zN3u_!").has_value());
  CHECK(Uuid{}.is_zero());
  CHECK(Uuid{}.to_string() == "AAAAAAAAAAAAAAAAAAAAAA");
}

TEST_CASE("Uuid::random is version 4, never zero, never starts with '-'", "[common][uuid]") {
  std::set<Uuid> seen;
  for (int i = 0; i < 200; ++i) {
    const Uuid u = Uuid::random();
    CHECK_FALSE(u.is_zero());
    CHECK(u.to_string()[0] != '-');
    CHECK((u.bytes[6] >> 4) == 4);
    CHECK((u.bytes[8] & 0xC0) == 0x80);
    seen.insert(u);
  }
  CHECK(seen.size() == 200);
}

TEST_CASE("the protocol's Uuid is the broker's Uuid: no conversion between layers", "[common][uuid]") {
  STATIC_REQUIRE(std::is_same_v<skiff::protocol::Uuid, Uuid>);
}
