// Random round trips: for every API, version and direction, messages filled
// with random values valid for that version must survive encode -> decode
// unchanged, re-encode to the same bytes, and match encoded_size().
#include <catch2/catch.hpp>

#include "protocol/any_message.h"
#include "protocol/api_table.h"
#include "protocol/testing/random_fill.h"

namespace skiff::protocol {
namespace {

constexpr int kSeedsPerVersion = 25;

std::vector<uint8_t> encode(const AnyMessage& m, int16_t version) {
  const size_t size = m.encoded_size(version);
  ByteWriter w(size);
  m.encode(w, version);
  auto out = w.take_bytes();
  REQUIRE(out.size() == size);
  return out;
}

void round_trip(bool request) {
  size_t messages = 0;
  for (const auto& api : all_apis()) {
    for (int16_t version = api.min_version; version <= api.max_version; ++version) {
      for (int seed = 0; seed < kSeedsPerVersion; ++seed) {
        INFO(api.name << (request ? " request" : " response") << " v" << version << " seed " << seed);
        testing::FillContext ctx(static_cast<uint64_t>(api.key) << 32 | version << 8 | seed);
        auto original = request ? make_request(api.key) : make_response(api.key);
        testing::random_fill(*original, ctx, version);
        const auto bytes = encode(*original, version);

        auto decoded = request ? make_request(api.key) : make_response(api.key);
        ByteReader r(bytes);
        decoded->decode(r, version);
        CHECK(r.empty());
        CHECK(testing::messages_equal(*decoded, *original));
        CHECK(encode(*decoded, version) == bytes);
        ++messages;
      }
    }
  }
  CHECK(messages > 1000);
}

TEST_CASE("codec: random requests round-trip in every version", "[codec][roundtrip]") { round_trip(true); }

TEST_CASE("codec: random responses round-trip in every version", "[codec][roundtrip]") { round_trip(false); }

}  // namespace
}  // namespace skiff::protocol
