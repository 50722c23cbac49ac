// Header rules: which header version each API version uses, the generated
// API table, and the bytes of request/response headers.
#include <catch2/catch.hpp>

#include "protocol/api_table.h"
#include "protocol/frame.h"
#include "protocol/generated/api_versions_response.h"
#include "protocol/generated/metadata_request.h"
#include "protocol/generated/produce_response.h"

namespace skiff::protocol {
namespace {

using Bytes = std::vector<uint8_t>;

Bytes flatten(const std::vector<ResponseChunk>& chunks) {
  REQUIRE(chunks.size() == 1);
  return std::get<Bytes>(chunks[0]);
}

TEST_CASE("codec: request header versions", "[codec][header]") {
  CHECK(request_header_version(0, 8) == 1);  // Produce, last non-flexible
  CHECK(request_header_version(0, 9) == 2);
  CHECK(request_header_version(18, 0) == 1);  // ApiVersions
  CHECK(request_header_version(18, 3) == 2);
  CHECK(request_header_version(18, 42) == 2);  // newer client than us
  CHECK(request_header_version(17, 1) == 1);   // SaslHandshake: never flexible
  CHECK(request_header_version(75, 0) == 2);   // DescribeTopicPartitions: always
  CHECK(request_header_version(4, 0) == -1);   // not served
}

TEST_CASE("codec: response header versions, ApiVersions always v0", "[codec][header]") {
  CHECK(response_header_version(0, 8) == 0);
  CHECK(response_header_version(0, 9) == 1);
  CHECK(response_header_version(3, 9) == 1);
  for (int16_t v = 0; v <= 4; ++v) CHECK(response_header_version(18, v) == 0);
  CHECK(response_header_version(4, 0) == -1);
}

TEST_CASE("codec: API table lists every served API once, sorted", "[codec][header]") {
  const auto apis = all_apis();
  CHECK(apis.size() == 79);
  for (size_t i = 1; i < apis.size(); ++i) CHECK(apis[i - 1].key < apis[i].key);
  const ApiInfo* produce = find_api(0);
  REQUIRE(produce != nullptr);
  CHECK(produce->name == "Produce");
  CHECK(produce->min_version == 0);
  CHECK(produce->max_version == 13);
  CHECK(produce->first_flexible_version == 9);
  CHECK(find_api(17)->first_flexible_version == -1);
  CHECK(find_api(1000) == nullptr);
}

TEST_CASE("codec: request header bytes", "[codec][header]") {
  RequestHeader h;
  h.request_api_key = 3;
  h.request_api_version = 9;
  h.correlation_id = 7;
  h.client_id = "ab";
  ByteWriter w;
  h.encode(w, 2);
  // v2: client_id stays a non-compact string, then an empty tag section.
  CHECK(w.take_bytes() == Bytes{0, 3, 0, 9, 0, 0, 0, 7, 0, 2, 'a', 'b', 0});
  h.client_id.reset();
  ByteWriter w1;
  h.encode(w1, 1);
  CHECK(w1.take_bytes() == Bytes{0, 3, 0, 9, 0, 0, 0, 7, 0xff, 0xff});
  ByteWriter w0;
  h.encode(w0, 0);
  CHECK(w0.take_bytes() == Bytes{0, 3, 0, 9, 0, 0, 0, 7});
}

TEST_CASE("codec: read_request_header picks the version from key and version", "[codec][header]") {
  RequestHeader h;
  h.correlation_id = 42;
  h.client_id = "cli";
  MetadataRequest body;
  for (int16_t version : {int16_t(4), int16_t(12)}) {
    const Bytes frame = encode_request_frame(h, version, body);
    ByteReader r(std::span<const uint8_t>(frame).subspan(4));
    const auto decoded = read_request_header(r);
    CHECK(decoded.known_api);
    CHECK(decoded.header_version == (version >= 9 ? 2 : 1));
    CHECK(decoded.header.request_api_key == 3);
    CHECK(decoded.header.request_api_version == version);
    CHECK(decoded.header.correlation_id == 42);
    CHECK(decoded.header.client_id == "cli");
    MetadataRequest back;
    back.decode(r, version);
    CHECK(r.empty());
  }
  const Bytes unknown = {0x03, 0xe8, 0, 0, 0, 0, 0, 9, 0xff, 0xff};
  ByteReader r(unknown);
  const auto decoded = read_request_header(r);
  CHECK_FALSE(decoded.known_api);
  CHECK(decoded.header.correlation_id == 9);
}

TEST_CASE("codec: response frames carry size, header and body", "[codec][header]") {
  ApiVersionsResponse api_versions;
  api_versions.api_keys.push_back({0, 0, 11, {}});
  // Flexible body (v3) but header v0: correlation id straight into the body.
  const Bytes frame = flatten(encode_response_frame(5, 3, api_versions));
  CHECK(frame.size() == 4 + 4 + api_versions.encoded_size(3));
  CHECK(Bytes(frame.begin(), frame.begin() + 8) == Bytes{0, 0, 0, static_cast<uint8_t>(frame.size() - 4), 0, 0, 0, 5});
  CHECK((frame[8] == 0 && frame[9] == 0));  // error_code, not a tag section

  ProduceResponse produce;
  const Bytes flexible = flatten(encode_response_frame(6, 9, produce));
  CHECK(flexible[8] == 0);  // header v1: empty tag section after correlation id
  CHECK(flexible.size() == 4 + 5 + produce.encoded_size(9));
}

}  // namespace
}  // namespace skiff::protocol
