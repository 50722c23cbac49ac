// Cross-implementation check: bodies encoded by franz-go's kmsg must decode
// and re-encode byte for byte, for every API and version we serve.
#include <catch2/catch.hpp>
#include <iostream>
#include <set>
#include <tuple>

#include "protocol/any_message.h"
#include "protocol/api_table.h"
#include "protocol/errors.h"
#include "tests/protocol/vector_file.h"

namespace skiff::protocol {
namespace {

std::string describe(const test::CodecVector& v) {
  return "line " + std::to_string(v.line) + ": key " + std::to_string(v.api_key) +
         (v.request ? " request v" : " response v") + std::to_string(v.version) + " " + v.variant;
}

TEST_CASE("codec: kmsg vectors decode and re-encode byte for byte", "[codec][kmsg]") {
  const auto vectors = test::load_codec_vectors(SKIFF_CODEC_VECTORS);
  REQUIRE(vectors.size() > 1000);

  std::set<std::tuple<int16_t, bool, int16_t>> covered;
  std::vector<std::string> failures;
  for (const auto& v : vectors) {
    auto message = v.request ? make_request(v.api_key) : make_response(v.api_key);
    if (!message) {
      failures.push_back(describe(v) + ": unknown API");
      continue;
    }
    try {
      ByteReader r(v.body);
      message->decode(r, v.version);
      if (!r.empty()) {
        failures.push_back(describe(v) + ": " + std::to_string(r.remaining()) + " bytes left");
        continue;
      }
      const size_t size = message->encoded_size(v.version);
      ByteWriter w(size);
      message->encode(w, v.version);
      const auto out = w.take_bytes();
      if (out.size() != size) failures.push_back(describe(v) + ": encoded_size mismatch");
      if (out != v.body) {
        failures.push_back(describe(v) + ": re-encoding differs");
        continue;
      }
      covered.emplace(v.api_key, v.request, v.version);
    } catch (const ProtocolError& e) {
      failures.push_back(describe(v) + ": " + e.what());
    }
  }
  for (size_t i = 0; i < failures.size() && i < 20; ++i) UNSCOPED_INFO(failures[i]);
  CHECK(failures.empty());

  // Every version of every API, both directions, must have a vector.
  size_t pairs = 0;
  for (const auto& api : all_apis()) {
    for (int16_t v = api.min_version; v <= api.max_version; ++v) {
      INFO(api.name << " v" << v);
      CHECK(covered.count({api.key, true, v}) == 1);
      CHECK(covered.count({api.key, false, v}) == 1);
      pairs += covered.count({api.key, true, v}) && covered.count({api.key, false, v});
    }
  }
  std::cout << "kmsg vectors: " << vectors.size() << " bodies, " << pairs
            << " (API, version) pairs covered in both directions\n";
}

}  // namespace
}  // namespace skiff::protocol
