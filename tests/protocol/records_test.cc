// Records fields: zero-copy decoding, file-region chunks when encoding, and
// unknown tagged fields kept in order between known ones.
#include <catch2/catch.hpp>

#include "protocol/frame.h"
#include "protocol/generated/api_versions_response.h"
#include "protocol/generated/fetch_response.h"
#include "protocol/generated/produce_request.h"

namespace skiff::protocol {
namespace {

using Bytes = std::vector<uint8_t>;

TEST_CASE("codec: decoded Produce records are views into the frame", "[codec][records]") {
  Bytes payload(1000);
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<uint8_t>(i);
  ProduceRequest request;
  auto& partition = request.topic_data.emplace_back().partition_data.emplace_back();
  partition.records = Records::bytes(payload);
  for (int16_t version : {int16_t(3), int16_t(11)}) {
    ByteWriter w(request.encoded_size(version));
    request.encode(w, version);
    const Bytes frame = w.take_bytes();

    ProduceRequest decoded;
    ByteReader r(frame);
    decoded.decode(r, version);
    const Records& records = decoded.topic_data.at(0).partition_data.at(0).records;
    REQUIRE(records.kind() == Records::Kind::kBytes);
    CHECK(records.data().data() >= frame.data());
    CHECK(records.data().data() + records.size() <= frame.data() + frame.size());
    CHECK(records == partition.records);
  }
}

TEST_CASE("codec: Fetch responses reference file regions as separate chunks", "[codec][records]") {
  FetchResponse response;
  auto& topic = response.responses.emplace_back();
  topic.topic = std::string(1, 't');  // (a literal trips GCC 12 -Wrestrict, PR105651)
  auto& p0 = topic.partitions.emplace_back();
  p0.records = Records::file_regions({FileRegion{7, 100, 300, nullptr}, FileRegion{7, 400, 200, nullptr}});
  auto& p1 = topic.partitions.emplace_back();
  const Bytes inline_bytes = {1, 2, 3};
  p1.records = Records::bytes(inline_bytes);

  for (int16_t version : {int16_t(4), int16_t(12)}) {
    const auto chunks = encode_response_frame(9, version, response);
    REQUIRE(chunks.size() == 4);  // bytes, region, region, bytes
    const auto& head = std::get<Bytes>(chunks[0]);
    CHECK(std::get<FileRegion>(chunks[1]).offset == 100);
    CHECK(std::get<FileRegion>(chunks[2]).length == 200);
    const auto& tail = std::get<Bytes>(chunks[3]);
    CHECK(head.size() + 500 + tail.size() == 4 + 4 + (version >= 12 ? 1 : 0) + response.encoded_size(version));
    // The records length prefix right before the region covers both regions.
    if (version >= 12) {
      // compact: uvarint(501) = 0xf5 0x03
      CHECK(Bytes(head.end() - 2, head.end()) == Bytes{0xf5, 0x03});
    } else {
      CHECK(Bytes(head.end() - 4, head.end()) == Bytes{0, 0, 0x01, 0xf4});
    }
    // Frame size prefix counts region bytes too.
    const uint32_t size = (uint32_t{head[0]} << 24) | (head[1] << 16) | (head[2] << 8) | head[3];
    CHECK(size == head.size() + 500 + tail.size() - 4);
  }
}

TEST_CASE("codec: pure byte responses stay one contiguous chunk", "[codec][records]") {
  FetchResponse response;
  const Bytes data(4096, 0xab);
  response.responses.emplace_back().partitions.emplace_back().records = Records::bytes(data);
  const auto chunks = encode_response_frame(1, 11, response);
  REQUIRE(chunks.size() == 1);
  CHECK(std::get<Bytes>(chunks[0]).size() == 4 + 4 + response.encoded_size(11));
}

TEST_CASE("codec: unknown tags are kept and written in tag order", "[codec][tags]") {
  ApiVersionsResponse response;
  response.finalized_features_epoch = 3;  // known tag 1
  response.unknown_tagged_fields = {{5, {9}}, {200, {1, 2}}};
  ByteWriter w;
  response.encode(w, 3);
  const Bytes bytes = w.take_bytes();
  // error_code, empty api_keys, throttle_time_ms, then the tag section.
  const Bytes expected = {0,    0,    1, 0, 0, 0, 0,
                          3,                                   // three tagged fields
                          1,    8,    0, 0, 0, 0, 0, 0, 0, 3,  // tag 1: epoch
                          5,    1,    9,                       // tag 5: raw
                          0xc8, 0x01, 2, 1, 2};                // tag 200: raw
  CHECK(bytes == expected);
  CHECK(response.encoded_size(3) == bytes.size());
  ApiVersionsResponse back;
  ByteReader r(bytes);
  back.decode(r, 3);
  CHECK(r.empty());
  CHECK(back == response);
}

}  // namespace
}  // namespace skiff::protocol
