// The ShareGroup* records of __consumer_offsets (share_group_log.h) against
// Kafka 4.4.0's own serialization (tests/coordinator/group/vectors/
// share_group_records.txt, made by tools/group_record_vectors/
// ShareGroupRecordVectors.java): ours encode to the same bytes, and Kafka's
// decode to the same fields.
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <sstream>

#include "coordinator/group/offsets_log.h"
#include "coordinator/group/share_group_log.h"

using namespace skiff;
using namespace skiff::group;

namespace {

using Bytes = std::vector<uint8_t>;

Bytes unhex(const std::string& h) {
  Bytes out;
  for (size_t i = 0; i + 1 < h.size(); i += 2)
    out.push_back(static_cast<uint8_t>(std::stoi(h.substr(i, 2), nullptr, 16)));
  return out;
}

const std::map<std::string, std::pair<Bytes, Bytes>>& share_vectors() {
  static const auto v = [] {
    std::map<std::string, std::pair<Bytes, Bytes>> out;
    std::ifstream in(SKIFF_SHARE_GROUP_RECORD_VECTORS);
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream ls(line);
      std::string name, k, val;
      ls >> name >> k >> val;
      out[name] = {unhex(k), unhex(val)};
    }
    return out;
  }();
  return v;
}

Uuid topic(uint8_t n) {
  Uuid t{};
  t.bytes[15] = n;
  return t;
}

ShareGroupRecord record(int16_t type, std::string member = {}) {
  ShareGroupRecord r;
  r.type = type;
  r.group_id = "g";
  r.member_id = std::move(member);
  return r;
}

// Ours encodes to Kafka's bytes; Kafka's decode back to `r`'s fields (checked by the caller).
ShareGroupRecord same_bytes(const std::string& name, const ShareGroupRecord& r) {
  INFO(name);
  REQUIRE(share_vectors().contains(name));
  const auto& [kb, vb] = share_vectors().at(name);
  CHECK(encode_share_key(r) == kb);
  CHECK(encode_share_value(r) == vb);
  auto back = decode_offsets_log_record(kb, std::span<const uint8_t>(vb));
  REQUIRE(back.kind == OffsetsLogRecord::Kind::kShare);
  CHECK(back.share->type == r.type);
  CHECK(back.share->group_id == "g");
  CHECK(back.share->member_id == r.member_id);
  return *back.share;
}

}  // namespace

TEST_CASE("share-group records: byte for byte as Kafka 4.4.0 writes them", "[groups][kip932][records]") {
  REQUIRE(share_vectors().size() == 7);
  auto m = record(kShareMemberMetadataType, "m1");
  m.member.rack_id = "r1";
  m.member.client_id = "c";
  m.member.client_host = "/127.0.0.1";
  m.member.subscribed_names = {"a", "b"};
  auto back = same_bytes("ShareGroupMemberMetadata", m);
  CHECK(back.member.rack_id == "r1");
  CHECK(back.member.subscribed_names == std::vector<std::string>{"a", "b"});

  auto n = record(kShareMemberMetadataType, "m2");
  n.member.client_id = "c";
  n.member.client_host = "/10.0.0.1";
  n.member.subscribed_names = {"a"};
  CHECK(!same_bytes("ShareGroupMemberMetadataNoRack", n).member.rack_id);

  auto g = record(kShareGroupMetadataType);
  g.epoch = 7;
  g.metadata_hash = 0x123456789a;
  back = same_bytes("ShareGroupMetadata", g);
  CHECK(back.epoch == 7);
  CHECK(back.metadata_hash == 0x123456789a);

  auto tm = record(kShareTargetMetadataType);
  tm.epoch = 5;
  tm.timestamp_ms = 1700000000000;
  CHECK(same_bytes("ShareGroupTargetAssignmentMetadata", tm).epoch == 5);

  auto t = record(kShareTargetMemberType, "m1");
  t.target = {{topic(1), {0, 1}}};
  CHECK(same_bytes("ShareGroupTargetAssignmentMember", t).target == t.target);

  auto c = record(kShareCurrentAssignmentType, "m1");
  c.member.member_epoch = 5;
  c.member.previous_member_epoch = 4;
  c.member.assigned = {{topic(1), {0, 2}}};
  back = same_bytes("ShareGroupCurrentMemberAssignment", c);
  CHECK(back.member.member_epoch == 5);
  CHECK(back.member.previous_member_epoch == 4);
  CHECK(back.member.assigned == c.member.assigned);

  auto s = record(kShareStatePartitionMetadataType);
  s.state.initializing[topic(1)] = {"a", {2, 3}, -1};
  s.state.initialized[topic(2)] = {"b", {0}, -1};
  s.state.deleting[topic(3)] = "c";
  CHECK(same_bytes("ShareGroupStatePartitionMetadata", s).state == s.state);
}
