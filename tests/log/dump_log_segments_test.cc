// Kafka's own DumpLogSegments reads our .log, .index and .timeindex files
// (and our transaction markers, .txnindex and producer .snapshot files):
// deep iteration over the log, --verify-index-only over both indexes, with
// no error and no mismatch; also segments rewritten by the log cleaner
// (gaps, empty batches, recompressed batches, batches stamped with a delete
// horizon whose records keep their own timestamps). Needs java and
// scripts/fetch_kafka_jars.sh: skipped without them, failed under CI=true.
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>

#include "cleaner_test_util.h"
#include "test_util.h"
#include "tests/support/kafka_jars.h"

using namespace skiff::storage;
using namespace skiff::storage::test;
namespace fs = std::filesystem;

using skiff::test::kafka_jar_dir;
using skiff::test::kafka_tools_available;
using skiff::test::run;

namespace {

bool contains_any(const std::string& s, std::initializer_list<const char*> needles) {
  for (auto n : needles)
    if (s.find(n) != std::string::npos) return true;
  return false;
}

// Kafka's DumpLogSegments with `args`; requires it to exit 0.
std::string dump(const std::string& args) {
  const std::string jars = kafka_jar_dir();  // fetched (or found) once per run
  const std::string java = "java -cp '" + jars + "/*' org.apache.kafka.tools.DumpLogSegments";
  int st = 0;
  std::string out = run(java + " " + args, &st);
  INFO(out.substr(0, 4000));
  REQUIRE(st == 0);
  return out;
}

// The .log, .index and .timeindex files of each segment, comma-separated.
std::string segment_files(const fs::path& dir, const std::vector<int64_t>& bases) {
  std::string files;
  for (auto base : bases) {
    for (auto ext : {".log", ".index", ".timeindex"}) {
      if (!files.empty()) files += ",";
      files += (dir / segment_file_name(base, ext)).string();
    }
  }
  return files;
}

// Both indexes of `files` pass Kafka's verification and sanity check.
void check_indexes(const std::string& files) {
  std::string verify = dump("--verify-index-only --files " + files);
  INFO(verify.substr(0, 4000));
  CHECK(!contains_any(verify, {"Exception", "Mismatches", "mismatch", "out of order", "not found", "ERROR"}));
  std::string sanity = dump("--index-sanity-check --files " + files);
  INFO(sanity.substr(0, 4000));
  CHECK(!contains_any(sanity, {"Exception", "failed", "ERROR"}));
}

}  // namespace

TEST_CASE("Kafka's DumpLogSegments verifies our segments and indexes", "[log][kafka]") {
  if (!kafka_tools_available()) return;
  TempDir dir;
  auto cfg = config_with([](LogConfig& c) { c.segment_bytes = int64_t{256} * 1024; });
  auto log = open_log(dir / "dump-0", cfg);
  std::mt19937 rng(5);
  int64_t ts = 1'700'000'000'000;
  for (int i = 0; i < 300; ++i) {
    BatchBuilder b;
    int n = 1 + static_cast<int>(rng() % 10);
    for (int k = 0; k < n; ++k) {
      ts += 1 + rng() % 3;
      BuilderRecord r{
          std::string("key-") + std::to_string(i), std::string(rng() % 3000, 'v'), ts, {{"trace", std::string("abc")}}};
      b.add(r);
    }
    if (i % 7 == 0) b.producer(1000 + i, 0, 0);
    auto bytes = b.build();
    REQUIRE(log->append(bytes, 5).has_value());
  }
  log->close();
  auto bases = log->segment_base_offsets();
  REQUIRE(bases.size() >= 3);
  const std::string files = segment_files(dir / "dump-0", bases);
  std::string deep = dump("--deep-iteration --files " + files);
  INFO(deep.substr(0, 4000));
  CHECK(!contains_any(deep, {"Exception", "invalid bytes", "Mismatches", "corrupt", "ERROR"}));
  CHECK(deep.find("baseOffset: 0 ") != std::string::npos);
  CHECK(deep.find("| offset: 0 ") != std::string::npos);
  check_indexes(files);
}

TEST_CASE("Kafka's DumpLogSegments reads our markers, .txnindex and producer .snapshot", "[log][kafka][txn]") {
  if (!kafka_tools_available()) return;
  TempDir dir;
  auto log = open_log(dir / "txn-0", config_with());
  const int64_t ts = 1'700'000'000'000;
  auto txn = [&](int64_t pid, int32_t seq) {
    BatchBuilder b;
    b.producer(pid, 1, seq).transactional(true).add("k", "v", ts).add("k", "w", ts);
    auto bytes = b.build();
    REQUIRE(log->append(bytes, 0, ts).has_value());
  };
  txn(7, 0);                                                          // 0-1
  txn(8, 0);                                                          // 2-3
  REQUIRE(log->append_marker(7, 1, false, 3, 1, 0, ts).has_value());  // 4: abort {7, 0, 4, lso 2}
  REQUIRE(log->append_marker(8, 1, true, 3, 1, 0, ts).has_value());   // 5: commit
  txn(9, 0);                                                          // 6-7: left open
  log->close();                                                       // snapshot at 8: 9's transaction open
  const fs::path d = dir / "txn-0";
  std::string deep = dump("--deep-iteration --print-data-log --files " + (d / segment_file_name(0, ".log")).string());
  INFO(deep.substr(0, 4000));
  CHECK(!contains_any(deep, {"Exception", "invalid bytes", "corrupt", "ERROR"}));
  CHECK(deep.find("isTransactional: true") != std::string::npos);
  CHECK(deep.find("isControl: true") != std::string::npos);
  CHECK(deep.find("endTxnMarker: ABORT coordinatorEpoch: 3") != std::string::npos);
  CHECK(deep.find("endTxnMarker: COMMIT coordinatorEpoch: 3") != std::string::npos);
  std::string idx = dump("--files " + (d / segment_file_name(0, ".txnindex")).string());
  INFO(idx);
  CHECK(!contains_any(idx, {"Exception", "ERROR"}));
  CHECK(idx.find("version: 0 producerId: 7 firstOffset: 0 lastOffset: 4 lastStableOffset: 2") != std::string::npos);
  std::string snap = dump("--files " + ProducerStateManager::snapshot_path(d, 8).string());
  INFO(snap);
  CHECK(!contains_any(snap, {"Exception", "ERROR"}));
  CHECK(snap.find("producerId: 9 producerEpoch: 1 coordinatorEpoch: -1 currentTxnFirstOffset: OptionalLong[6]") !=
        std::string::npos);
  CHECK(snap.find("producerId: 7 producerEpoch: 1 coordinatorEpoch: 3 currentTxnFirstOffset: OptionalLong.empty") !=
        std::string::npos);
}

TEST_CASE("Kafka's DumpLogSegments reads segments rewritten by the log cleaner", "[log][kafka][cleaner]") {
  if (!kafka_tools_available()) return;
  TempDir dir;
  auto log = open_log(dir / "compact-0", compact_config([](LogConfig& c) { c.segment_bytes = int64_t{64} * 1024; }));
  std::mt19937 rng(11);
  int64_t ts = 1'700'000'000'000;
  const Compression codecs[] = {Compression::kNone, Compression::kGzip, Compression::kSnappy, Compression::kLz4,
                                Compression::kZstd};
  int32_t seq = 0;
  for (int i = 0; i < 400; ++i) {
    BatchBuilder b;
    int n = 1 + static_cast<int>(rng() % 6);
    for (int k = 0; k < n; ++k) {
      bool del = rng() % 9 == 0;
      b.add(BuilderRecord{"key-" + std::to_string(rng() % 40),
                          del ? std::nullopt : std::optional<std::string>(std::string(rng() % 2000, 'v')),
                          ++ts,
                          {{"trace", std::string("abc")}}});
    }
    if (i % 5 == 0) {
      b.producer(2000, 0, seq);
      seq += n;
    }
    REQUIRE(append_tmp(*log, with_codec(b.build(), codecs[i % 5]), 3).has_value());
  }
  REQUIRE(outcome(log->roll(ts)) == LogErrc::kNone);
  std::map<int64_t, int64_t> ts_of;  // offset -> record timestamp before cleaning
  for (const auto& rec : read_records(*log)) ts_of[rec.offset] = rec.timestamp;
  Cleaner cleaner(CleanerConfig{});
  const int64_t now = ts + 1000;
  auto r = cleaner.clean(*log, durable_point(*log, -1, now), now);
  REQUIRE(r.status.has_value());
  REQUIRE(r.records_kept < r.records_read);
  log->close();
  const std::string files = segment_files(dir / "compact-0", log->segment_base_offsets());
  std::string deep = dump("--deep-iteration --print-data-log --files " + files);
  INFO(deep.substr(0, 4000));
  CHECK(!contains_any(deep, {"Exception", "invalid bytes", "Mismatches", "corrupt", "ERROR"}));
  for (const char* codec :
       {"compresscodec: gzip", "compresscodec: snappy", "compresscodec: lz4", "compresscodec: zstd"})
    CHECK(deep.find(codec) != std::string::npos);
  // Batches keeping a tombstone carry the delete horizon (KIP-534); Kafka
  // reads every record's timestamp as it was written ("| offset: N CreateTime: T").
  const int64_t horizon = now + log->config()->delete_retention_ms;
  CHECK(deep.find("deleteHorizonMs: OptionalLong[" + std::to_string(horizon) + "]") != std::string::npos);
  CHECK(deep.find("deleteHorizonMs: OptionalLong.empty") != std::string::npos);
  CHECK(deep.find("isvalid: false") == std::string::npos);
  size_t checked = 0;
  for (size_t at = deep.find("| offset: "); at != std::string::npos; at = deep.find("| offset: ", at + 1)) {
    long long off = 0, t = 0;
    REQUIRE(std::sscanf(deep.c_str() + at, "| offset: %lld CreateTime: %lld", &off, &t) == 2);
    REQUIRE(ts_of.count(off) == 1);
    CHECK(t == ts_of[off]);
    ++checked;
  }
  CHECK(checked == static_cast<size_t>(r.records_kept));
  check_indexes(files);
}

TEST_CASE("Kafka's DumpLogSegments reads a marker stamped with its delete horizon", "[log][kafka][cleaner][txn]") {
  if (!kafka_tools_available()) return;
  TempDir dir;
  auto log = open_log(dir / "mark-0", compact_config());
  const int64_t ts = 1'700'000'000'000;
  auto txn = [&](int32_t seq, const char* key) {
    BatchBuilder b;
    b.producer(7, 0, seq).transactional(true).add(key, "t", ts + seq);
    REQUIRE(append_tmp(*log, b.build()).has_value());
  };
  txn(0, "k");                                                                               // 0: superseded below
  REQUIRE(log->append_marker(7, 0, true, 0, 1, 0, ts + 10).has_value());                     // 1: COMMIT
  txn(1, "j");                                                                               // 2
  REQUIRE(log->append_marker(7, 0, true, 0, 1, 0, ts + 20).has_value());                     // 3: COMMIT
  REQUIRE(append_tmp(*log, BatchBuilder().add("k", "plain", ts + 30).build()).has_value());  // 4
  REQUIRE(outcome(log->roll(ts + 30)) == LogErrc::kNone);
  Cleaner cleaner(CleanerConfig{});
  const int64_t end = log->active_base_offset();
  REQUIRE(cleaner.clean_once(*log, 0, end, ts + 100).status.has_value());    // k=t goes
  REQUIRE(cleaner.clean_once(*log, end, end, ts + 200).status.has_value());  // its marker gets a horizon
  log->close();
  const int64_t horizon = ts + 200 + log->config()->delete_retention_ms;
  std::string deep =
      dump("--deep-iteration --print-data-log --files " + (dir / "mark-0" / segment_file_name(0, ".log")).string());
  INFO(deep.substr(0, 4000));
  CHECK(!contains_any(deep, {"Exception", "invalid bytes", "corrupt", "ERROR", "isvalid: false"}));
  CHECK(deep.find("baseOffset: 1 lastOffset: 1 count: 1") != std::string::npos);
  CHECK(deep.find("isControl: true deleteHorizonMs: OptionalLong[" + std::to_string(horizon) + "]") !=
        std::string::npos);
  CHECK(deep.find("isControl: true deleteHorizonMs: OptionalLong.empty") != std::string::npos);  // offset 3's
  // The marker record keeps its own timestamp under the horizon.
  CHECK(deep.find("| offset: 1 CreateTime: " + std::to_string(ts + 10) +
                  " keySize: 4 valueSize: 6 sequence: -1 "
                  "headerKeys: [] endTxnMarker: COMMIT") != std::string::npos);
}
