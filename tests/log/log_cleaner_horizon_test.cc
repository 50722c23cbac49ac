// The delete horizon (KIP-534, as Kafka 3.0+): the pass that first cleans a
// batch keeping a tombstone (or a marker that may go) stamps it with
// attribute bit 6 and baseTimestamp = now + delete.retention.ms, record
// timestamps preserved; tombstones and markers stay before the horizon and go
// on a pass at or past it, also once the clean part is one merged segment
// (the case the old segment-mtime rule never expired).
#include <catch2/catch.hpp>

#include "cleaner_test_util.h"
#include "log/control_batch.h"

using namespace skiff::storage;
using namespace skiff::storage::test;

namespace {

constexpr int64_t kRetention = 60'000;

using KVs = std::vector<std::pair<std::string, std::optional<std::string>>>;

std::vector<uint8_t> keyed_with_header(const KVs& kvs, int64_t ts, int64_t ts_step = 0) {
  BatchBuilder b;
  for (const auto& [k, v] : kvs) {
    b.add(BuilderRecord{k, v, ts, {{"h", std::string("x")}}});
    ts += ts_step;
  }
  return b.build();
}

void append_rolled(Log& log, const KVs& kvs, int64_t ts) {
  REQUIRE(append_tmp(log, keyed_with_header(kvs, ts)).has_value());
  REQUIRE(outcome(log.roll(ts)) == LogErrc::kNone);
}

std::vector<std::string> view(const Log& log) {
  std::vector<std::string> out;
  for (const auto& r : read_records(log)) out.push_back(r.key.value_or("?") + "=" + r.value.value_or("null"));
  return out;
}

std::shared_ptr<const LogConfig> horizon_config(const std::function<void(LogConfig&)>& f = nullptr) {
  return compact_config([f](LogConfig& c) {
    c.delete_retention_ms = kRetention;
    if (f) f(c);
  });
}

// A clean of the log's clean part only (no dirty data: an empty map), as a
// pass started by dirty data elsewhere would do.
void reclean(Log& log, Cleaner& c, int64_t now) {
  const int64_t end = log.active_base_offset();
  REQUIRE(c.clean_once(log, end, end, now).status.has_value());
}

}  // namespace

TEST_CASE("The first clean stamps a tombstone's batch with its delete horizon, timestamps preserved",
          "[log][cleaner][horizon]") {
  for (auto codec :
       {Compression::kNone, Compression::kGzip, Compression::kSnappy, Compression::kLz4, Compression::kZstd}) {
    CAPTURE(static_cast<int>(codec));
    TempDir dir;
    auto log = open_log(dir / "t-0", horizon_config());
    // Offsets 0-3, timestamps kT0 + 0, 7, 14, 21: a is superseded later, b is a tombstone.
    REQUIRE(append_tmp(
                *log,
                with_codec(keyed_with_header({{"a", "1"}, {"b", std::nullopt}, {"c", "1"}, {"d", "1"}}, kT0, 7), codec))
                .has_value());
    REQUIRE(append_tmp(*log, with_codec(keyed_with_header({{"a", "2"}}, kT0 + 100), codec)).has_value());  // offset 4
    REQUIRE(outcome(log->roll(kT0 + 100)) == LogErrc::kNone);
    const auto before = read_records(*log);
    const int64_t now = kT0 + 5'000;
    Cleaner cleaner(small_cleaner());
    clean_all(*log, cleaner, -1, now);

    auto batches = read_all_batches(*log);
    REQUIRE(batches.size() == 2);
    RecordBatchView stamped(batches[0]), plain(batches[1]);
    CHECK(stamped.has_delete_horizon());
    CHECK(stamped.delete_horizon_ms() == now + kRetention);
    CHECK(stamped.base_timestamp() == now + kRetention);
    CHECK(stamped.compression() == codec);
    CHECK(stamped.base_offset() == 0);
    CHECK(stamped.last_offset() == 3);
    CHECK(stamped.max_timestamp() == kT0 + 21);
    CHECK_FALSE(plain.has_delete_horizon());  // no tombstone: not stamped
    CHECK(plain.base_timestamp() == kT0 + 100);
    // Every kept record keeps its offset, timestamp and headers.
    auto after = read_records(*log);
    CHECK(after == std::vector<Rec>{before[1], before[2], before[3], before[4]});
    if (codec == Compression::kNone) {  // ListOffsets by timestamp reads record timestamps
      auto hit = log->offset_for_timestamp(kT0 + 8);
      CHECK(hit.offset.value == 2);
      CHECK(hit.timestamp == kT0 + 14);
      CHECK(log->max_timestamp_offset().offset.value == 4);
    }
    log->close();
    log = open_log(dir / "t-0", horizon_config(), true);
    CHECK(read_records(*log) == after);
    if (codec == Compression::kNone) CHECK(log->offset_for_timestamp(kT0 + 15).offset.value == 3);
  }
}

TEST_CASE("A tombstone stays before its delete horizon and goes at it, in one merged segment",
          "[log][cleaner][horizon]") {
  TempDir dir;
  auto log = open_log(dir / "t-0", horizon_config());  // segment.bytes 1 GiB: everything merges
  append_rolled(*log, {{"a", "1"}, {"b", "1"}, {"c", "1"}}, kT0);
  append_rolled(*log, {{"a", std::nullopt}, {"b", "2"}}, kT0 + 1);
  Cleaner cleaner(small_cleaner());
  auto p = clean_all(*log, cleaner, -1, kT0);
  CHECK(view(*log) == std::vector<std::string>{"c=1", "a=null", "b=2"});
  CHECK(log->segment_count() == 2);  // the clean part is one segment, plus the active one

  append_rolled(*log, {{"d", "1"}}, kT0 + 2);
  p = clean_all(*log, cleaner, p.first_uncleanable, kT0 + kRetention - 1);
  CHECK(view(*log) == std::vector<std::string>{"c=1", "a=null", "b=2", "d=1"});
  CHECK(log->segment_count() == 2);

  append_rolled(*log, {{"e", "1"}}, kT0 + 3);
  p = clean_all(*log, cleaner, p.first_uncleanable, kT0 + kRetention);
  CHECK(view(*log) == std::vector<std::string>{"c=1", "b=2", "d=1", "e=1"});
}

TEST_CASE("A stamped batch rewritten later keeps its horizon, a tombstone past the map's end stays",
          "[log][cleaner][horizon]") {
  TempDir dir;
  auto log = open_log(dir / "t-0", horizon_config());
  append_rolled(*log, {{"a", std::nullopt}, {"b", "1"}, {"c", "1"}}, kT0);
  Cleaner cleaner(small_cleaner());
  auto p = clean_all(*log, cleaner, -1, kT0);
  REQUIRE(RecordBatchView(read_all_batches(*log)[0]).delete_horizon_ms() == kT0 + kRetention);
  // b is superseded: the stamped batch is rewritten at a later time, same horizon.
  append_rolled(*log, {{"b", "2"}}, kT0 + 10);
  p = clean_all(*log, cleaner, p.first_uncleanable, kT0 + 1000);
  auto first = read_all_batches(*log)[0];
  RecordBatchView v(first);
  CHECK(v.delete_horizon_ms() == kT0 + kRetention);
  CHECK(v.record_count() == 2);
  CHECK(view(*log) == std::vector<std::string>{"a=null", "c=1", "b=2"});

  // A tombstone past the map's end is kept even when its horizon has passed
  // (a later record of its key may exist that this pass did not map).
  BatchFilterContext ctx;  // stamp a batch by hand: horizon kT0 - 1000
  ctx.now_ms = kT0 - 1000;
  ctx.delete_retention_ms = 0;
  ctx.map_end = 0;
  std::vector<uint8_t> stamped;
  BatchFilterStats st;
  auto fresh = keyed_with_header({{"x", "1"}, {"y", "1"}, {"z", "1"}, {"c", std::nullopt}}, kT0 + 20);
  filter_batch(RecordBatchView(fresh), ctx, stamped, st);
  REQUIRE(RecordBatchView(stamped).has_delete_horizon());  // all kept, c's tombstone stamped
  REQUIRE(append_tmp(*log, stamped).has_value());
  REQUIRE(outcome(log->roll(kT0 + 20)) == LogErrc::kNone);
  Cleaner tiny(CleanerConfig{size_t{24} * 3, 0.9, 4096, {}});  // two keys a pass
  CleanResult r = tiny.clean_once(*log, p.first_uncleanable, log->active_base_offset(), kT0);
  REQUIRE(r.status.has_value());
  REQUIRE(r.end_offset == p.first_uncleanable + 2);  // z did not fit
  auto recs = read_records(*log);
  REQUIRE(recs.back().key == "c");
  CHECK_FALSE(recs.back().value);  // c stays deleted
  // A full pass with room for every key removes it (its horizon has passed).
  Cleaner big(small_cleaner());
  REQUIRE(big.clean_once(*log, r.end_offset, log->active_base_offset(), kT0).status.has_value());
  CHECK(view(*log) == std::vector<std::string>{"a=null", "b=2", "x=1", "y=1", "z=1"});
}

TEST_CASE("A marker whose transaction is gone gets its horizon, then goes at it", "[log][cleaner][horizon][txn]") {
  TempDir dir;
  auto log = open_log(dir / "t-0", horizon_config());
  auto txn = [&](int64_t pid, int32_t seq, const std::string& k, int64_t ts) {
    BatchBuilder b;
    b.producer(pid, 0, seq).transactional(true).add(k, "t", ts);
    REQUIRE(append_tmp(*log, b.build()).has_value());
  };
  txn(5, 0, "k", kT0);                                                     // 0
  REQUIRE(log->append_marker(5, 0, true, 0, 1, 0, kT0 + 1).has_value());   // 1: COMMIT
  txn(6, 0, "m", kT0 + 2);                                                 // 2
  REQUIRE(log->append_marker(6, 0, false, 0, 1, 0, kT0 + 3).has_value());  // 3: ABORT
  txn(5, 1, "j", kT0 + 4);                                                 // 4
  REQUIRE(log->append_marker(5, 0, true, 0, 1, 0, kT0 + 5).has_value());   // 5: COMMIT, j stays
  txn(6, 1, "n", kT0 + 6);                                                 // 6
  REQUIRE(log->append_marker(6, 0, true, 0, 1, 0, kT0 + 7).has_value());   // 7: COMMIT, n stays
  append_rolled(*log, {{"k", "plain"}}, kT0 + 8);                          // 8: supersedes k
  const auto before = read_records(*log);
  auto markers = [&](const Log& l) {
    std::map<int64_t, std::optional<int64_t>> out;  // marker offset -> horizon
    for (auto& bytes : read_all_batches(l)) {
      RecordBatchView v(bytes);
      if (v.is_control() && v.record_count() > 0) out[v.base_offset()] = v.delete_horizon_ms();
    }
    return out;
  };
  using M = std::map<int64_t, std::optional<int64_t>>;
  auto aborts = [&](const Log& l) { return l.collect_aborted_txns(Offset(0), Offset(100)).size(); };
  REQUIRE(aborts(*log) == 1);

  Cleaner cleaner(small_cleaner());
  clean_all(*log, cleaner, -1, kT0);  // k=t and m=t go; their markers were read after their batches
  CHECK(markers(*log) == M{{1, std::nullopt}, {3, std::nullopt}, {5, std::nullopt}, {7, std::nullopt}});
  reclean(*log, cleaner, kT0 + 100);  // nothing of transactions 0 and 2 is left: stamped
  const int64_t h = kT0 + 100 + kRetention;
  CHECK(markers(*log) == M{{1, h}, {3, h}, {5, std::nullopt}, {7, std::nullopt}});
  CHECK(aborts(*log) == 1);                 // the ABORT marker stays, and so does its .txnindex entry
  for (const auto& r : read_records(*log))  // the markers' own timestamps are preserved
    for (const auto& b : before)
      if (b.offset == r.offset) CHECK(r == b);
  reclean(*log, cleaner, h - 1);
  CHECK(markers(*log).size() == 4);
  reclean(*log, cleaner, h);
  CHECK(markers(*log) == M{{5, std::nullopt}, {7, std::nullopt}});
  CHECK(aborts(*log) == 0);
  std::vector<int64_t> offsets;
  for (const auto& r : read_records(*log)) offsets.push_back(r.offset);
  CHECK(offsets == std::vector<int64_t>{4, 5, 6, 7, 8});
}
