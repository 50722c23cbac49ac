// Log cleaner core: last value per key against an exact model, lag settings,
// empty batches of idempotent producers, multi-pass with a tiny dedupe
// buffer, merging, codecs, preserved offsets/timestamps/headers. (Tombstones
// and the delete horizon: log_cleaner_horizon_test.cc.)
#include <catch2/catch.hpp>

#include "cleaner_test_util.h"
#include "log/offset_map.h"

using namespace skiff::storage;
using namespace skiff::storage::test;

namespace {

// Random updates and deletes over `keys` keys; a roll every `roll_every` batches.
void random_workload(Log& log, std::mt19937& rng, int batches, int keys, int roll_every, Compression codec,
                     int64_t& ts) {
  for (int i = 0; i < batches; ++i) {
    BatchBuilder b;
    int n = 1 + static_cast<int>(rng() % 5);
    for (int k = 0; k < n; ++k) {
      std::string key = "k" + std::to_string(rng() % keys);
      bool del = rng() % 10 == 0;
      BuilderRecord r{key, del ? std::nullopt : std::optional<std::string>("v" + std::to_string(rng())), ++ts, {}};
      if (rng() % 4 == 0) r.headers.push_back({"h", std::string("x") + std::to_string(i)});
      b.add(r);
    }
    REQUIRE(append_tmp(log, with_codec(b.build(), codec)).has_value());
    if ((i + 1) % roll_every == 0) REQUIRE(outcome(log.roll(ts)) == LogErrc::kNone);
  }
}

std::vector<uint8_t> keyed(const std::vector<std::pair<std::string, std::optional<std::string>>>& kvs, int64_t ts) {
  BatchBuilder b;
  for (const auto& [k, v] : kvs) b.add(BuilderRecord{k, v, ts, {}});
  return b.build();
}

}  // namespace

TEST_CASE("OffsetMap keeps the latest offset per key and reports full", "[log][cleaner]") {
  OffsetMap m(size_t{24} * 10, 0.9);
  REQUIRE(m.slots() == 10);
  REQUIRE(m.max_entries() == 9);
  auto k = [](const std::string& s) {
    return std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size());
  };
  for (int i = 0; i < 9; ++i) REQUIRE(m.put(k("key" + std::to_string(i)), i));
  REQUIRE(m.full());
  REQUIRE_FALSE(m.put(k("other"), 100));
  REQUIRE(m.put(k("key3"), 50));  // an existing key still updates
  CHECK(m.get(k("key3")) == 50);
  CHECK(m.get(k("key4")) == 4);
  CHECK(m.get(k("other")) == -1);
  CHECK(m.latest_offset() == 50);
  m.clear();
  CHECK(m.get(k("key3")) == -1);
}

TEST_CASE("Codecs round-trip Kafka's framings", "[log][cleaner]") {
  std::vector<uint8_t> data(100000);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>((i * 7) % 13);
  for (auto c : {Compression::kGzip, Compression::kSnappy, Compression::kLz4, Compression::kZstd}) {
    auto z = compress(c, data);
    REQUIRE(z);
    CHECK(z->size() < data.size());
    auto back = decompress(c, *z, 1 << 20);
    REQUIRE(back);
    CHECK(*back == data);
    CHECK_FALSE(decompress(c, *z, 1000));  // output bound
    std::vector<uint8_t> cut(z->begin(), z->begin() + z->size() / 2);
    CHECK_FALSE(decompress(c, cut, 1 << 20));
  }
}

TEST_CASE("Cleaner keeps exactly the last record of every key (random workload)", "[log][cleaner]") {
  for (auto codec :
       {Compression::kNone, Compression::kGzip, Compression::kSnappy, Compression::kLz4, Compression::kZstd}) {
    TempDir dir;
    auto log = open_log(dir / "t-0", compact_config());
    std::mt19937 rng(static_cast<unsigned>(codec) + 1);
    int64_t ts = kT0;
    random_workload(*log, rng, 400, 60, 25, codec, ts);
    auto before = read_records(*log);
    Cleaner cleaner(small_cleaner());
    auto p = clean_all(*log, cleaner, -1, ts);
    REQUIRE(p.first_uncleanable == log->active_base_offset());
    auto after = read_records(*log);
    CHECK(after == model_after_clean(before, p.first_uncleanable, /*keep_tombstones=*/true));
    CHECK(log->log_end_offset().value == before.back().offset + 1);
    for (auto& bytes : read_all_batches(*log)) CHECK(RecordBatchView(bytes).compression() == codec);
    // Same data after a restart (indexes rebuilt or loaded).
    log->close();
    log = open_log(dir / "t-0", compact_config(), true);
    CHECK(read_records(*log) == after);
  }
}

namespace {

// Appends one batch, rolls, and dates the new segment `ts` (its mtime).
void append_segment(Log& log, const std::vector<std::pair<std::string, std::optional<std::string>>>& kvs, int64_t ts) {
  REQUIRE(append_tmp(log, keyed(kvs, ts)).has_value());
  REQUIRE(outcome(log.roll(ts)) == LogErrc::kNone);
  REQUIRE(set_mtime_ms(log.inactive_segments().back()->log_path(), ts).has_value());
}

}  // namespace

TEST_CASE("Lag settings and the dirty ratio decide what is cleanable", "[log][cleaner]") {
  TempDir dir;
  auto log = open_log(dir / "t-0", compact_config());
  append_segment(*log, {{"a", "1"}, {"b", "1"}}, kT0);  // segment 0
  append_segment(*log, {{"a", "2"}}, kT0 + 10'000);     // segment 1
  append_segment(*log, {{"b", "2"}}, kT0 + 20'000);     // segment 2
  const auto segs = log->inactive_segments();
  REQUIRE(segs.size() == 3);

  SECTION("min.compaction.lag.ms stops the dirty range at the first too-young segment") {
    log->set_config(compact_config([](LogConfig& c) { c.min_compaction_lag_ms = 15'000; }));
    auto p = durable_point(*log, -1, kT0 + 30'000);  // segment 2 is 10 s old: too young
    CHECK(p.first_dirty == 0);
    CHECK(p.first_uncleanable == segs[2]->base_offset().value);
    Cleaner cleaner(small_cleaner());
    REQUIRE(cleaner.clean(*log, p, kT0 + 30'000).status.has_value());
    auto recs = read_records(*log);
    // a=1 removed (a=2 is cleanable), b=1 kept: b=2 is not in the cleaned range.
    std::vector<int64_t> offs;
    offs.reserve(recs.size());
    for (const auto& r : recs) offs.push_back(r.offset);
    CHECK(offs == std::vector<int64_t>{1, 2, 3});
    p = durable_point(*log, p.first_uncleanable, kT0 + 30'000);
    CHECK(p.first_dirty == p.first_uncleanable);  // nothing more yet
    CHECK_FALSE(needs_cleaning(p, *log->config()));
  }
  SECTION("min.cleanable.dirty.ratio, and max.compaction.lag.ms overriding it") {
    log->set_config(compact_config([](LogConfig& c) { c.min_cleanable_dirty_ratio = 0.5; }));
    // Checkpoint after segment 1: clean = segments 0-1, dirty = segment 2.
    auto p = durable_point(*log, segs[2]->base_offset().value, kT0 + 30'000);
    CHECK(p.dirty_ratio() < 0.5);
    CHECK_FALSE(needs_cleaning(p, *log->config()));
    log->set_config(compact_config([](LogConfig& c) {
      c.min_cleanable_dirty_ratio = 0.5;
      c.max_compaction_lag_ms = 5'000;
    }));
    p = durable_point(*log, segs[2]->base_offset().value, kT0 + 30'000);
    CHECK(p.max_lag_exceeded);
    CHECK(needs_cleaning(p, *log->config()));
    p = durable_point(*log, -1, kT0 + 30'000);
    CHECK(p.dirty_ratio() == 1.0);
    CHECK(needs_cleaning(p, *log->config()));
  }
  SECTION("not compacted: never") {
    log->set_config(config_with());
    CHECK_FALSE(needs_cleaning(durable_point(*log, -1, kT0), *log->config()));
  }
}

// A power cut may take every segment above the recovery point: a record
// superseded only there must stay, or its key would vanish with the cut.
TEST_CASE("The cleaner cleans only below the recovery point", "[log][cleaner]") {
  TempDir dir;
  auto log = open_log(dir / "t-0", compact_config());
  append_segment(*log, {{"a", "1"}, {"b", "1"}}, kT0);  // offsets 0-1
  append_segment(*log, {{"a", "2"}}, kT0);              // offset 2
  make_durable(*log);
  append_segment(*log, {{"b", "2"}}, kT0);  // offset 3: not yet durable
  REQUIRE(log->recovery_point().value == 3);
  auto p = cleaning_point(*log, -1, kT0);
  CHECK(p.first_uncleanable == 3);
  Cleaner cleaner(small_cleaner());
  REQUIRE(cleaner.clean(*log, p, kT0).status.has_value());
  std::vector<int64_t> offs;
  for (const auto& r : read_records(*log)) offs.push_back(r.offset);
  CHECK(offs == std::vector<int64_t>{1, 2, 3});  // a=1 goes; b=1 stays until b=2 is durable
  CHECK(durable_point(*log, p.first_uncleanable, kT0).first_uncleanable == 4);
}

TEST_CASE("A batch holding an idempotent producer's last sequence is kept empty", "[log][cleaner]") {
  TempDir dir;
  auto log = open_log(dir / "t-0", compact_config());
  BatchBuilder b;
  b.producer(7, 0, 0).add("a", "1", kT0).add("b", "1", kT0);
  REQUIRE(append_tmp(*log, b.build()).has_value());  // offsets 0-1: producer 7's last batch
  BatchBuilder b2;
  b2.producer(8, 0, 0).add("c", "1", kT0);
  REQUIRE(append_tmp(*log, b2.build()).has_value());  // offset 2: producer 8, seq 0
  BatchBuilder b3;
  b3.producer(8, 0, 1).add("d", "1", kT0);
  REQUIRE(append_tmp(*log, b3.build()).has_value());                // offset 3: producer 8's last batch
  append_segment(*log, {{"a", "2"}, {"b", "2"}, {"c", "2"}}, kT0);  // offsets 4-6
  Cleaner cleaner(small_cleaner());
  clean_all(*log, cleaner, -1, kT0);
  auto batches = read_all_batches(*log);
  REQUIRE(batches.size() == 3);
  RecordBatchView empty(batches[0]);
  CHECK(empty.record_count() == 0);
  CHECK(empty.base_offset() == 0);
  CHECK(empty.last_offset() == 1);
  CHECK(empty.producer_id() == 7);
  CHECK(empty.base_sequence() == 0);
  CHECK(empty.crc_valid());
  CHECK(empty.validate_header_and_crc());
  // Producer 8's first batch (not its last) went away entirely.
  CHECK(RecordBatchView(batches[1]).base_offset() == 3);
  CHECK(RecordBatchView(batches[2]).base_offset() == 4);
  // The producer state rebuilt from the cleaned log still knows producer 7.
  log->close();
  log = open_log(dir / "t-0", compact_config(), true);
  std::map<int64_t, int32_t> seqs;
  for (const auto& [pid, e] : log->producer_states()) seqs[pid] = e.last_seq();
  CHECK(seqs[7] == 1);
  CHECK(seqs[8] == 1);
}

TEST_CASE("A tiny dedupe buffer cleans in several passes to the same result", "[log][cleaner]") {
  TempDir dir1, dir2;
  auto big = open_log(dir1 / "t-0", compact_config());
  auto tiny = open_log(dir2 / "t-0", compact_config());
  for (auto* log : {big.get(), tiny.get()}) {
    std::mt19937 rng(42);
    int64_t ts = kT0;
    random_workload(*log, rng, 300, 200, 20, Compression::kNone, ts);
  }
  auto before = read_records(*big);
  REQUIRE(before == read_records(*tiny));
  Cleaner big_cleaner(small_cleaner());
  Cleaner tiny_cleaner(small_cleaner(size_t{24} * 40));  // 36 keys a pass
  CleanResult rb, rt;
  auto p = clean_all(*big, big_cleaner, -1, kT0, &rb);
  clean_all(*tiny, tiny_cleaner, -1, kT0, &rt);
  CHECK(rb.passes == 1);
  CHECK(rt.passes > 5);
  auto cleaned = read_records(*big);
  CHECK(cleaned == model_after_clean(before, p.first_uncleanable, true));
  // Each pass only knows keys up to its end: a second full cleaning of the
  // tiny log (now with a big buffer) reaches the single-pass result.
  auto tiny_after = read_records(*tiny);
  CHECK(tiny_after.size() >= cleaned.size());
  for (const auto& r : cleaned) CHECK(std::find(tiny_after.begin(), tiny_after.end(), r) != tiny_after.end());
  Cleaner again(small_cleaner());
  REQUIRE(again.clean_once(*tiny, 0, p.first_uncleanable, kT0).status.has_value());
  CHECK(read_records(*tiny) == cleaned);
}

TEST_CASE("Small cleaned segments merge up to segment.bytes", "[log][cleaner]") {
  TempDir dir;
  auto log = open_log(dir / "t-0", compact_config());
  int64_t ts = kT0;
  for (int i = 0; i < 12; ++i) append_segment(*log, {{"k" + std::to_string(i % 4), std::string(200, 'x')}}, ++ts);
  REQUIRE(log->segment_count() == 13);
  const int64_t seg_bytes = static_cast<int64_t>(log->inactive_segments().front()->size());
  log->set_config(compact_config([&](LogConfig& c) { c.segment_bytes = 3 * seg_bytes; }));
  Cleaner cleaner(small_cleaner());
  clean_all(*log, cleaner, -1, ts);
  auto bases = log->segment_base_offsets();
  // Three segments fit a group: 12 segments -> 4 groups (emptied ones stay as empty segments).
  CHECK(bases == std::vector<int64_t>{0, 3, 6, 9, 12});
  auto recs = read_records(*log);
  std::vector<int64_t> offs;
  offs.reserve(recs.size());
  for (const auto& r : recs) offs.push_back(r.offset);
  CHECK(offs == std::vector<int64_t>{8, 9, 10, 11});
  // Cleaning again with room for everything merges them into one.
  log->set_config(compact_config());
  clean_all(*log, cleaner, 0, ts);
  CHECK(log->segment_base_offsets() == std::vector<int64_t>{0, 12});
  CHECK(read_records(*log) == recs);
}

TEST_CASE("Cleaning preserves offsets, timestamps and headers", "[log][cleaner]") {
  TempDir dir;
  auto log = open_log(dir / "t-0", compact_config());
  BatchBuilder b;
  b.add(BuilderRecord{"a", "old", kT0 + 5, {{"h1", std::string("v1")}}});
  b.add(BuilderRecord{"b", "keep", kT0 + 9, {{"h2", std::nullopt}, {"h3", std::string("zz")}}});
  b.add(BuilderRecord{"c", "old", kT0 + 20, {}});
  REQUIRE(append_tmp(*log, b.build()).has_value());
  append_segment(*log, {{"a", "new"}, {"c", "new"}}, kT0 + 30);
  auto before = read_records(*log);
  Cleaner cleaner(small_cleaner());
  clean_all(*log, cleaner, -1, kT0 + 30);
  auto after = read_records(*log);
  REQUIRE(after.size() == 3);
  CHECK(after[0] == before[1]);  // offset 1, its timestamp and both headers, byte for byte
  CHECK(after[1] == before[3]);
  CHECK(after[2] == before[4]);
  auto batches = read_all_batches(*log);
  RecordBatchView first(batches[0]);
  CHECK(first.base_offset() == 0);
  CHECK(first.last_offset() == 1);
  CHECK(first.max_timestamp() == kT0 + 9);
}

TEST_CASE("cleaner-offset-checkpoint has Kafka's name and format", "[log][cleaner]") {
  TempDir dir;
  std::map<TopicPartition, int64_t> m{{{"topic-a", 0}, 42}, {{"b", 3}, 7}};
  REQUIRE(write_cleaner_checkpoint(dir.path(), m));
  std::string text;
  REQUIRE(read_small_file(dir / "cleaner-offset-checkpoint", text));
  CHECK(text == "0\n2\nb 3 7\ntopic-a 0 42\n");
  CHECK(read_cleaner_checkpoint(dir.path()) == m);
  CHECK(read_cleaner_checkpoint(dir / "missing").empty());
}

TEST_CASE("An open transaction's records are not cleaned: the LSO bounds the pass", "[log][cleaner]") {
  TempDir dir;
  auto log = open_log(dir / "t-0", compact_config());
  REQUIRE(append_tmp(*log, keyed({{"a", "committed"}}, kT0)).has_value());
  BatchBuilder txn;
  txn.producer(9, 0, 0).transactional(true).add("a", "maybe-aborted", kT0);
  auto res = append_tmp(*log, txn.build());
  INFO((res ? std::string() : res.error().message));
  REQUIRE(res.has_value());
  append_segment(*log, {{"b", "1"}}, kT0);
  Cleaner cleaner(small_cleaner());
  auto p = clean_all(*log, cleaner, -1, kT0);
  CHECK(p.first_uncleanable == 1);
  auto recs = read_records(*log);
  REQUIRE(recs.size() == 3);
  CHECK(recs[0].value == "committed");
  CHECK(recs[1].value == "maybe-aborted");
}
