// The __share_group_state record format against bytes Kafka's own classes
// produced (share_record_vectors.txt, from ShareRecordVectors.java): each
// decodes to the expected record and re-encodes byte for byte.
#include "coordinator/share/share_records.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <map>

#include "protocol/errors.h"

using namespace skiff;
using namespace skiff::sharecoord;

namespace {

std::vector<uint8_t> unhex(const std::string& s) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i + 1 < s.size(); i += 2)
    out.push_back(static_cast<uint8_t>(std::stoi(s.substr(i, 2), nullptr, 16)));
  return out;
}

struct Vector {
  std::vector<uint8_t> key;
  std::optional<std::vector<uint8_t>> value;
};

std::map<std::string, Vector> kafka_vectors() {
  std::ifstream in(std::string(SKIFF_SOURCE_DIR) + "/tests/coordinator/share/share_record_vectors.txt");
  REQUIRE(in.good());
  std::map<std::string, Vector> out;
  std::string name, key, value;
  while (in >> name >> key >> value)
    out[name] = {unhex(key), value == "-" ? std::nullopt : std::optional(unhex(value))};
  REQUIRE(out.size() == 4);
  return out;
}

ShareRecord decode(const Vector& v) {
  std::optional<std::span<const uint8_t>> value;
  if (v.value) value = std::span<const uint8_t>(*v.value);
  return decode_share_record(v.key, value);
}

}  // namespace

TEST_CASE("Kafka's __share_group_state records decode and re-encode byte for byte", "[share][coordinator]") {
  const Key key{"g\u00e9", *Uuid::parse("q5BwgPNDRzeTLW6sPvIzWg"), 3};
  for (const auto& [name, v] : kafka_vectors()) {
    INFO(name);
    const auto r = decode(v);
    CHECK(r.key == key);
    const auto enc = encode_share_record(r);
    CHECK(enc.key == v.key);
    CHECK(enc.value == v.value);
  }
  auto vectors = kafka_vectors();
  const auto init = decode(vectors.at("snapshot_init"));
  CHECK(init.type == ShareRecord::Type::kSnapshot);
  CHECK(init.value.state_epoch == 1);
  CHECK(init.value.start_offset == 100);
  CHECK(init.value.delivery_complete_count == 0);
  CHECK(decode(vectors.at("snapshot_batches")).value.batches ==
        std::vector<StateBatch>{{10, 19, 2, 1}, {20, 29, 0, 3}});
  CHECK(decode(vectors.at("snapshot_batches")).value.delivery_complete_count == -1);
  const auto update = decode(vectors.at("update"));
  CHECK(update.type == ShareRecord::Type::kUpdate);
  CHECK(update.value.leader_epoch == 7);
  CHECK(update.value.delivery_complete_count == 5);
  CHECK(update.value.batches == std::vector<StateBatch>{{12, 15, 4, 2}});
  CHECK(decode(vectors.at("tombstone")).type == ShareRecord::Type::kTombstone);
}

TEST_CASE("__share_group_state refuses what it never holds", "[share][coordinator]") {
  const std::vector<uint8_t> unknown_type{0x00, 0x05, 0x00, 0x00};
  CHECK_THROWS_AS(decode_share_record(unknown_type, std::nullopt), protocol::DecodeError);
  auto v = kafka_vectors().at("update");
  CHECK_THROWS_AS(decode_share_record(v.key, std::nullopt), protocol::DecodeError);  // an update tombstone
  auto bad_version = *v.value;
  bad_version[1] = 9;
  CHECK_THROWS_AS(decode_share_record(v.key, std::span<const uint8_t>(bad_version)), protocol::DecodeError);
}
