// The group coordinator's state on __consumer_offsets: Kafka's record bytes,
// which partition and batch kind each write is, tombstones.
#include <algorithm>

#include "common/kafka_hash.h"
#include "coordinator/group/offsets_log.h"
#include "log/control_batch.h"
#include "log/record_batch.h"
#include "tests/coordinator/group/group_fixture.h"

using namespace skiff;
using namespace skiff::test;

namespace {

const TopicPartition kTp{"topic", 0};

struct StoredRecord {
  bool transactional = false;
  bool control = false;
  int64_t producer_id = -1;
  std::optional<bool> commit;  // control batches
  std::vector<uint8_t> key;
  std::optional<std::vector<uint8_t>> value;
};

// Every record of __consumer_offsets-<partition>, in offset order.
std::vector<StoredRecord> read_partition(storage::LogManager& logs, int32_t partition) {
  auto log = logs.get_log("__consumer_offsets", partition);
  REQUIRE(log);
  auto rr = log->read(log->log_start_offset(), 16 << 20);
  REQUIRE(outcome(rr) == storage::LogErrc::kNone);
  auto bytes = rr->slice.read_all();
  std::vector<StoredRecord> out;
  storage::BatchIterator batches(bytes);
  storage::RecordBatchView b;
  while (batches.next(b)) {
    if (b.is_control()) {
      auto m = storage::parse_marker(b);
      REQUIRE(m);
      out.push_back({b.is_transactional(), true, b.producer_id(), m->commit, {}, std::nullopt});
      continue;
    }
    storage::RecordIterator it(b);
    storage::RecordView r;
    while (it.next(r)) {
      StoredRecord s{b.is_transactional(),           false,       b.producer_id(), std::nullopt,
                     {r.key->begin(), r.key->end()}, std::nullopt};
      if (r.value) s.value = std::vector<uint8_t>(r.value->begin(), r.value->end());
      out.push_back(std::move(s));
    }
  }
  return out;
}

OffsetCommitParams commit(const std::string& group, int64_t offset, const TopicPartition& tp = kTp) {
  OffsetCommitParams p;
  p.group_id = group;
  OffsetAndMetadata o;
  o.offset = offset;
  o.commit_timestamp = 1000;
  p.offsets.push_back({tp, o});
  return p;
}

int64_t committed(GroupCoordinator& c, const std::string& group, const TopicPartition& tp = kTp) {
  auto r = c.fetch_offsets(group, std::vector<TopicPartition>{tp}, /*require_stable=*/true);
  REQUIRE(r.offsets.size() == 1);
  if (r.offsets[0].error == ErrorCode::kUnstableOffsetCommit) return -2;
  return r.offsets[0].committed ? r.offsets[0].committed->offset : -1;
}

ErrorCode marker(GroupCoordinator& c, const std::string& group, int64_t pid, int16_t epoch, bool commit) {
  std::optional<ErrorCode> got;
  c.on_marker(pid, epoch, commit, c.offsets_partition_for(group), [&](ErrorCode e) { got = e; });
  REQUIRE(got);
  return *got;
}

OffsetAndMetadata committed_at(int64_t offset) {
  OffsetAndMetadata o;
  o.offset = offset;
  o.commit_timestamp = 5;
  return o;
}

}  // namespace

TEST_CASE("__consumer_offsets records are Kafka's bytes", "[groups][offsets_topic]") {
  // OffsetCommitKey: type 1, then group, topic, partition at v0.
  CHECK(encode_offset_key("g", {"t", 1}) == std::vector<uint8_t>{0, 1, 0, 1, 'g', 0, 1, 't', 0, 0, 0, 1});
  OffsetAndMetadata o{.offset = 7, .leader_epoch = 2, .metadata = "m", .commit_timestamp = 9, .expire_timestamp = -1};
  // OffsetCommitValue v4 (flexible): offset, leaderEpoch, metadata,
  // commitTimestamp, then the tagged topicId (left out when unknown).
  CHECK(encode_offset_value(o) ==
        std::vector<uint8_t>{0, 4, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 2, 2, 'm', 0, 0, 0, 0, 0, 0, 0, 9, 0});
  protocol::Uuid id;
  id.bytes[0] = 0xab;
  id.bytes[15] = 0xcd;
  auto with_id = encode_offset_value(o, id);
  REQUIRE(with_id.size() == 25 + 18);
  CHECK(std::vector<uint8_t>(with_id.begin() + 24, with_id.begin() + 27) == std::vector<uint8_t>{1, 0, 16});
  CHECK((with_id[27] == 0xab && with_id.back() == 0xcd));
  // With its own expiry (OffsetCommit v2-4 retention): v1 with expireTimestamp.
  o.expire_timestamp = 11;
  auto v1 = encode_offset_value(o);
  CHECK(v1 ==
        std::vector<uint8_t>{0, 1, 0, 0, 0, 0, 0, 0, 0, 7, 0, 1, 'm', 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 11});
  auto key = encode_offset_key("g", {"t", 1});
  auto rec = decode_offsets_log_record(key, std::span<const uint8_t>(v1));
  CHECK(rec.kind == OffsetsLogRecord::Kind::kOffset);
  CHECK(rec.offset->expire_timestamp == 11);
  CHECK(rec.offset->leader_epoch == -1);  // not in v1
  // GroupMetadataKey: type 2, group; GroupMetadataValue v3.
  CHECK(encode_group_key("g") == std::vector<uint8_t>{0, 2, 0, 1, 'g'});
  GroupRecord g{.group_id = "g",
                .protocol_type = "consumer",
                .generation = 3,
                .protocol = "range",
                .leader = "m1",
                .state_timestamp = 4,
                .members = {}};
  g.members.push_back({"m1", std::nullopt, "c", "/h", 100, 10, {1}, {2, 3}});
  auto gv = encode_group_value(g);
  REQUIRE(gv.size() > 2);
  CHECK((gv[0] == 0 && gv[1] == 3));
  auto back = decode_offsets_log_record(encode_group_key("g"), std::span<const uint8_t>(gv));
  REQUIRE(back.group_value);
  CHECK(back.group_value->generation == 3);
  CHECK(back.group_value->members.at(0).assignment == Bytes{2, 3});
  // A tombstone.
  CHECK(!decode_offsets_log_record(key, std::nullopt).offset);
}

TEST_CASE("a commit is a record of the group's __consumer_offsets partition, a compacted topic",
          "[groups][offsets_topic]") {
  GroupFixture f;
  REQUIRE(f.c().commit_offsets(commit("g", 42)) == std::vector<ErrorCode>{ErrorCode::kNone});
  auto info = f.logs->topic("__consumer_offsets");
  REQUIRE(info);
  CHECK(info->partitions == GroupFixture::test_config().offsets_topic_num_partitions);
  CHECK(f.c().offsets_partitions() == info->partitions);
  CHECK(f.logs->topic_config("__consumer_offsets")->compact);
  const int32_t p = skiff::offsets_partition_for("g", info->partitions);
  CHECK(f.c().offsets_partition_for("g") == p);
  auto recs = read_partition(*f.logs, p);
  REQUIRE(recs.size() == 1);
  CHECK(!recs[0].transactional);
  CHECK(recs[0].key == encode_offset_key("g", kTp));
  auto rec = decode_offsets_log_record(recs[0].key, std::span<const uint8_t>(*recs[0].value));
  CHECK(rec.offset->offset == 42);
}

TEST_CASE("TxnOffsetCommit is a transactional batch of the producer, the marker a control batch there",
          "[groups][offsets_topic][txn]") {
  GroupFixture f;
  TxnOffsetCommitParams t;
  t.group_id = "g";
  t.producer_id = 7;
  t.producer_epoch = 0;
  t.offsets.push_back({kTp, committed_at(10)});
  REQUIRE(f.c().commit_txn_offsets(t) == std::vector<ErrorCode>{ErrorCode::kNone});
  t.offsets[0].second.offset = 11;  // a second TxnOffsetCommit of the same transaction
  REQUIRE(f.c().commit_txn_offsets(t) == std::vector<ErrorCode>{ErrorCode::kNone});
  REQUIRE(marker(f.c(), "g", 7, 0, true) == ErrorCode::kNone);
  auto recs = read_partition(*f.logs, f.c().offsets_partition_for("g"));
  REQUIRE(recs.size() == 3);
  CHECK((recs[0].transactional && recs[1].transactional && recs[0].producer_id == 7));
  CHECK((recs[2].control && recs[2].commit == true && recs[2].producer_id == 7));
  CHECK(committed(f.c(), "g") == 11);
  // An abort is written too, and leaves the committed offset alone, also after a restart.
  t.offsets[0].second.offset = 12;
  REQUIRE(f.c().commit_txn_offsets(t) == std::vector<ErrorCode>{ErrorCode::kNone});
  REQUIRE(marker(f.c(), "g", 7, 0, false) == ErrorCode::kNone);
  recs = read_partition(*f.logs, f.c().offsets_partition_for("g"));
  REQUIRE(recs.size() == 5);
  CHECK((recs[4].control && recs[4].commit == false));
  f.restart();
  CHECK(committed(f.c(), "g") == 11);
}

TEST_CASE("DeleteGroups writes tombstones for the group's offsets and the group", "[groups][offsets_topic]") {
  GroupFixture f;
  REQUIRE(f.c().commit_offsets(commit("g", 1, {"a", 0})) == std::vector<ErrorCode>{ErrorCode::kNone});
  REQUIRE(f.c().commit_offsets(commit("g", 2, {"b", 1})) == std::vector<ErrorCode>{ErrorCode::kNone});
  REQUIRE(f.c().delete_groups({"g"}) == std::vector<ErrorCode>{ErrorCode::kNone});
  auto recs = read_partition(*f.logs, f.c().offsets_partition_for("g"));
  REQUIRE(recs.size() == 5);
  // Without them, compaction would drop the group's tombstone and keep its offsets.
  CHECK((recs[2].key == encode_offset_key("g", {"a", 0}) && !recs[2].value));
  CHECK((recs[3].key == encode_offset_key("g", {"b", 1}) && !recs[3].value));
  CHECK((recs[4].key == encode_group_key("g") && !recs[4].value));
  f.restart();
  CHECK(committed(f.c(), "g", {"a", 0}) == -1);
  CHECK(f.c().group_count() == 0);
}

TEST_CASE("expired offsets are tombstones on __consumer_offsets, so the cleaner drops them",
          "[groups][offsets_topic]") {
  GroupFixture f;
  REQUIRE(f.c().commit_offsets(commit("g", 1)) == std::vector<ErrorCode>{ErrorCode::kNone});
  const int64_t retention = f.c().config().offsets_retention_ms;
  REQUIRE(f.c().expire_offsets(1000 + retention + 1) == 1);
  auto recs = read_partition(*f.logs, f.c().offsets_partition_for("g"));
  REQUIRE(recs.size() == 3);  // the offset, its tombstone, the group's tombstone
  CHECK((recs[1].key == encode_offset_key("g", kTp) && !recs[1].value));
  CHECK((recs[2].key == encode_group_key("g") && !recs[2].value));
  f.restart();
  CHECK(committed(f.c(), "g") == -1);
}
