#include <catch2/catch.hpp>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "log/crc32c.h"
#include "test_util.h"

using namespace skiff;
using namespace skiff::storage;
using namespace skiff::storage::test;

namespace {

struct ModelBatch {
  std::vector<uint8_t> bytes;  // as stored (offsets assigned)
  int64_t base, last;
  std::vector<int64_t> record_ts;
};

std::vector<uint8_t> random_batch(std::mt19937& rng, int64_t& ts, std::vector<int64_t>& tss) {
  BatchBuilder b;
  int n = 1 + static_cast<int>(rng() % 8);
  size_t vsize = rng() % 2500;
  tss.clear();
  for (int i = 0; i < n; ++i) {
    ts += static_cast<int64_t>(rng() % 5);
    tss.push_back(ts);
    b.add(std::string("key") + std::to_string(rng() % 100), std::string(vsize, static_cast<char>('a' + rng() % 26)),
          ts);
  }
  return b.build();
}

}  // namespace

TEST_CASE("random appends and reads agree with a std::map model across many segments", "[log][model]") {
  TempDir dir;
  auto cfg = config_with([](LogConfig& c) {
    c.segment_bytes = 64 * 1024;
    c.index_interval_bytes = 4096;
  });
  auto log = open_log(dir.path(), cfg);
  std::mt19937 rng(1234);
  std::map<int64_t, ModelBatch> model;  // by base offset
  int64_t ts = 1'000'000;
  for (int i = 0; i < 600; ++i) {
    std::vector<int64_t> tss;
    auto b = random_batch(rng, ts, tss);
    auto r = log->append(b, 3);
    REQUIRE(r.has_value());
    RecordBatchView v(b);
    CHECK(r->base_offset.value == v.base_offset());
    CHECK(v.partition_leader_epoch() == 3);
    model[v.base_offset()] = {b, v.base_offset(), v.last_offset(), tss};
  }
  const int64_t leo = model.rbegin()->second.last + 1;
  REQUIRE(log->log_end_offset().value == leo);
  CHECK(log->segment_count() > 10);

  auto check_all = [&](Log& lg) {
    for (int i = 0; i < 800; ++i) {
      int64_t o = static_cast<int64_t>(rng() % leo);
      size_t max_bytes = 1 + rng() % 60000;
      auto r = lg.read(Offset(o), max_bytes);
      REQUIRE(outcome(r) == LogErrc::kNone);
      auto bytes = r->slice.read_all();
      REQUIRE(!bytes.empty());
      auto it = std::prev(model.upper_bound(o));  // batch containing o
      BatchIterator bi(bytes);
      RecordBatchView v;
      int n = 0;
      while (bi.next(v)) {
        REQUIRE(it != model.end());
        CHECK(v.base_offset() == it->second.base);
        CHECK(std::equal(v.bytes().begin(), v.bytes().end(), it->second.bytes.begin(), it->second.bytes.end()));
        ++it;
        ++n;
      }
      CHECK(bi.error());  // whole batches only
      CHECK((n == 1 || bytes.size() <= max_bytes));
    }
    // Timestamps: first record with ts >= target.
    for (int i = 0; i < 300; ++i) {
      int64_t target = 999'000 + static_cast<int64_t>(rng() % (ts - 999'000 + 100));
      int64_t want_off = -1, want_ts = -1;
      for (const auto& [base, mb] : model) {
        for (size_t k = 0; k < mb.record_ts.size(); ++k) {
          if (mb.record_ts[k] >= target) {
            want_off = base + static_cast<int64_t>(k);
            want_ts = mb.record_ts[k];
            break;
          }
        }
        if (want_off >= 0) break;
      }
      auto got = lg.offset_for_timestamp(target);
      CHECK(got.offset.value == want_off);
      CHECK(got.timestamp == want_ts);
    }
    // Max timestamp: first record carrying the largest timestamp.
    int64_t max_ts = -1, max_off = -1;
    for (const auto& [base, mb] : model) {
      for (size_t k = 0; k < mb.record_ts.size(); ++k) {
        if (mb.record_ts[k] > max_ts) {
          max_ts = mb.record_ts[k];
          max_off = base + static_cast<int64_t>(k);
        }
      }
    }
    auto m = lg.max_timestamp_offset();
    CHECK(m.timestamp == max_ts);
    CHECK(m.offset.value == max_off);
  };
  check_all(*log);
  log->close();
  log.reset();
  auto reopened = open_log(dir.path(), cfg, /*clean=*/true);
  CHECK(reopened->load_stats().segments_recovered == 0);
  CHECK(reopened->log_end_offset().value == leo);
  check_all(*reopened);
  // Appends continue after reopen.
  auto b = make_test_batch(2, 10, ts + 10);
  auto r = reopened->append(b);
  REQUIRE(r.has_value());
  CHECK(r->base_offset.value == leo);
}

TEST_CASE("read edge cases: out of range, end, KIP-74, inside a batch", "[log][read]") {
  TempDir dir;
  auto log = open_log(dir.path(), config_with());
  auto big = make_test_batch(10, 1000, 5);  // ~10 KB, offsets 0..9
  auto small = make_test_batch(1, 10, 6);   // offset 10
  REQUIRE(log->append(big).has_value());
  REQUIRE(log->append(small).has_value());
  CHECK(outcome(log->read(Offset(12), 100)) == LogErrc::kOffsetOutOfRange);
  CHECK(outcome(log->read(Offset(-1), 100)) == LogErrc::kOffsetOutOfRange);
  auto end = log->read(Offset(11), 100);
  REQUIRE(outcome(end) == LogErrc::kNone);
  CHECK(end->slice.empty());
  CHECK(end->log_end_offset.value == 11);
  auto r = log->read(Offset(4), 100);  // inside the big batch, max smaller than it
  REQUIRE(outcome(r) == LogErrc::kNone);
  CHECK(r->slice.length == big.size());
  CHECK(r->slice.position == 0);
  auto both = log->read(Offset(0), 1 << 20);
  CHECK(both->slice.length == big.size() + small.size());
  auto one = log->read(Offset(0), big.size() + small.size() - 1);
  CHECK(one->slice.length == big.size());
}

TEST_CASE("segments roll on size, time and full index", "[log][roll]") {
  TempDir dir;
  SECTION("segment.bytes") {
    auto log = open_log(dir.path(), config_with([](LogConfig& c) { c.segment_bytes = 10000; }));
    for (int i = 0; i < 10; ++i) REQUIRE(append_tmp(*log, make_test_batch(1, 3000, 1)).has_value());
    CHECK(log->segment_count() >= 4);
    for (auto b : log->segment_base_offsets()) {
      auto sz = std::filesystem::file_size(dir / segment_file_name(b, ".log"));
      CHECK(sz <= 10000);
    }
  }
  SECTION("segment.ms") {
    auto log = open_log(dir.path(), config_with([](LogConfig& c) { c.segment_ms = 1000; }));
    int64_t now = wall_clock_ms();
    REQUIRE(append_tmp(*log, make_test_batch(1, 10, now), 0, now).has_value());
    REQUIRE(append_tmp(*log, make_test_batch(1, 10, now), 0, now + 500).has_value());
    CHECK(log->segment_count() == 1);
    REQUIRE(append_tmp(*log, make_test_batch(1, 10, now), 0, now + 1500).has_value());
    CHECK(log->segment_count() == 2);
    CHECK(log->segment_base_offsets().back() == 2);
  }
  SECTION("full offset index") {
    auto log = open_log(dir.path(), config_with([](LogConfig& c) {
                          c.segment_index_bytes = 8 * 4;  // 4 offset entries, 2 time entries
                          c.index_interval_bytes = 1;
                        }));
    for (int i = 0; i < 20; ++i) REQUIRE(append_tmp(*log, make_test_batch(1, 10, 100 + i)).has_value());
    CHECK(log->segment_count() >= 5);
    auto all = read_all_batches(*log);
    CHECK(all.size() == 20);
  }
  SECTION("rolled index files are trimmed") {
    auto log = open_log(dir.path(), config_with([](LogConfig& c) { c.segment_bytes = 20000; }));
    for (int i = 0; i < 8; ++i) REQUIRE(append_tmp(*log, make_test_batch(1, 5000, 100 + i)).has_value());
    auto bases = log->segment_base_offsets();
    REQUIRE(bases.size() >= 2);
    CHECK(std::filesystem::file_size(dir / segment_file_name(bases[0], ".index")) % 8 == 0);
    CHECK(std::filesystem::file_size(dir / segment_file_name(bases[0], ".index")) < 1024);
    CHECK(std::filesystem::file_size(dir / segment_file_name(bases.back(), ".index")) == 10 * 1024 * 1024);
  }
}

TEST_CASE("retention by time and bytes deletes whole old segments", "[log][retention]") {
  TempDir dir;
  auto cfg = config_with([](LogConfig& c) {
    c.segment_bytes = 5000;
    c.retention_ms = -1;
  });
  auto log = open_log(dir.path(), cfg);
  for (int i = 0; i < 20; ++i) REQUIRE(append_tmp(*log, make_test_batch(1, 3000, 1000 + i * 1000)).has_value());
  const size_t segs = log->segment_count();
  REQUIRE(segs >= 10);
  // A reader holding a slice of the first segment keeps its bytes.
  auto held = log->read(Offset(0), 100);
  REQUIRE(!held->slice.empty());
  CHECK(log->delete_old_segments(wall_clock_ms()) == 0);  // retention.ms = -1
  SECTION("time") {
    log->set_config(config_with([](LogConfig& c) {
      c.segment_bytes = 5000;
      c.retention_ms = 10000;
    }));
    // now = 16000: segments whose max timestamp < 6000 go.
    int n = log->delete_old_segments(16000);
    CHECK(n > 0);
    CHECK(log->log_start_offset().value == log->segment_base_offsets().front());
    CHECK(outcome(log->read(Offset(0), 100)) == LogErrc::kOffsetOutOfRange);
    auto first = log->read(log->log_start_offset(), 100);
    REQUIRE(!first->slice.empty());
    auto first_bytes = first->slice.read_all();
    RecordBatchView v(first_bytes);
    CHECK(v.max_timestamp() >= 6000);
    CHECK(!std::filesystem::exists(dir / segment_file_name(0, ".log")));
    auto bytes = held->slice.read_all();  // deleted file, still readable through the fd
    CHECK(bytes.size() == held->slice.length);
  }
  SECTION("bytes") {
    log->set_config(config_with([](LogConfig& c) {
      c.segment_bytes = 5000;
      c.retention_ms = -1;
      c.retention_bytes = 12000;
    }));
    log->delete_old_segments(wall_clock_ms());
    CHECK(log->size_in_bytes() <= 12000 + 5000);
    CHECK(log->size_in_bytes() >= 12000 - 3200);
    CHECK(log->segment_count() < segs);
  }
  SECTION("DeleteRecords") {
    CHECK(outcome(log->maybe_increment_log_start_offset(Offset(100))) == LogErrc::kOffsetOutOfRange);
    REQUIRE(outcome(log->maybe_increment_log_start_offset(Offset(7))) == LogErrc::kNone);
    CHECK(log->log_start_offset().value == 7);
    CHECK(outcome(log->read(Offset(6), 100)) == LogErrc::kOffsetOutOfRange);
    CHECK(outcome(log->read(Offset(7), 100)) == LogErrc::kNone);
    CHECK(log->segment_base_offsets().front() <= 7);
    CHECK(outcome(log->maybe_increment_log_start_offset(Offset(3))) == LogErrc::kNone);
    CHECK(log->log_start_offset().value == 7);
  }
}

TEST_CASE("LogAppendTime stamps batches and reports the time", "[log][append]") {
  TempDir dir;
  auto log =
      open_log(dir.path(), config_with([](LogConfig& c) { c.message_timestamp_type = TimestampType::kLogAppendTime; }));
  auto b = make_test_batch(3, 10, 5);
  auto r = log->append(b, 0, 777777);
  REQUIRE(r.has_value());
  CHECK(r->log_append_time == 777777);
  auto stored = read_all_batches(*log);
  REQUIRE(stored.size() == 1);
  RecordBatchView v(stored[0]);
  CHECK(v.validate_for_append());
  CHECK(v.timestamp_type() == TimestampType::kLogAppendTime);
  CHECK(v.max_timestamp() == 777777);
  CHECK(log->offset_for_timestamp(777777).offset.value == 0);
}

TEST_CASE("append rejects bad input without touching the log", "[log][append]") {
  TempDir dir;
  auto log = open_log(dir.path(), config_with([](LogConfig& c) { c.max_message_bytes = 2000; }));
  auto ok = make_test_batch(1, 10, 1);
  REQUIRE(log->append(ok).has_value());
  auto big = make_test_batch(1, 3000, 1);
  CHECK(outcome(log->append(big)) == LogErrc::kMessageTooLarge);
  auto bad = make_test_batch(1, 10, 1);
  bad.back() ^= 1;
  CHECK(outcome(log->append(bad)) == LogErrc::kCorruptMessage);
  auto old = make_test_batch(1, 10, 1);
  old[16] = 1;
  CHECK(outcome(log->append(old)) == LogErrc::kUnsupportedForMessageFormat);
  auto ctrl = BatchBuilder().control(true).add(std::nullopt, std::string_view("x"), 1).build();
  CHECK(outcome(log->append(ctrl)) == LogErrc::kInvalidRecord);
  // A right CRC over records consumers could not parse: refused, as Kafka does.
  auto framing = make_test_batch(2, 10, 1);
  framing[batch_layout::kHeaderSize] = 0x7E;  // the first record's length lies
  store_be32(framing.data() + batch_layout::kCrc,
             crc32c(framing.data() + batch_layout::kAttributes, framing.size() - batch_layout::kAttributes));
  CHECK(outcome(log->append(framing)) == LogErrc::kInvalidRecord);
  std::vector<uint8_t> two = ok;
  two.insert(two.end(), bad.begin(), bad.end());
  CHECK(outcome(log->append(two)) == LogErrc::kCorruptMessage);  // all or nothing
  auto future = make_test_batch(1, 10, wall_clock_ms() + 10LL * 3600 * 1000);
  log->set_config(config_with([](LogConfig& c) { c.message_timestamp_after_max_ms = 3600000; }));
  CHECK(outcome(log->append(future)) == LogErrc::kInvalidTimestamp);
  CHECK(log->log_end_offset().value == 1);
  CHECK(read_all_batches(*log).size() == 1);
}

TEST_CASE("flush.messages=1 with concurrent writers: group commit, no lost offsets", "[log][flush]") {
  TempDir dir;
  auto log = open_log(dir.path(), config_with([](LogConfig& c) {
                        c.flush_messages = 1;
                        c.segment_bytes = 64 * 1024;
                      }));
  constexpr int kThreads = 8, kPer = 40;
  std::vector<std::vector<int64_t>> got(kThreads);
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; ++t) {
    ts.emplace_back([&, t] {
      for (int i = 0; i < kPer; ++i) {
        auto b = make_test_batch(2, 200, 1000 + i, static_cast<uint64_t>(t * 1000 + i));
        auto r = log->append(b);
        if (r.has_value()) got[t].push_back(r->base_offset.value);
        // Concurrent reader on the same log.
        auto rd = log->read(Offset(0), 4096);
        (void)rd;
      }
    });
  }
  for (auto& th : ts) th.join();
  std::set<int64_t> all;
  for (auto& v : got) {
    CHECK(v.size() == kPer);
    all.insert(v.begin(), v.end());
  }
  CHECK(all.size() == kThreads * kPer);
  CHECK(*all.rbegin() == (kThreads * kPer - 1) * 2);
  CHECK(log->recovery_point().value == log->log_end_offset().value);
  CHECK(read_all_batches(*log).size() == kThreads * kPer);
}

TEST_CASE("compressed batches are stored opaquely and looked up at batch level", "[log][append]") {
  TempDir dir;
  auto log = open_log(dir.path(), config_with());
  REQUIRE(append_tmp(*log, make_test_batch(2, 10, 100)).has_value());
  // Mark a batch as gzip-compressed (payload left as is: the log never
  // decompresses) and fix the CRC.
  BatchBuilder bb;
  bb.add(std::string_view("a"), std::string_view("x"), 200).add(std::string_view("b"), std::string_view("y"), 300);
  auto b = bb.build();
  store_be16(b.data() + batch_layout::kAttributes, static_cast<uint16_t>(Compression::kGzip));
  store_be32(b.data() + batch_layout::kCrc,
             crc32c(b.data() + batch_layout::kAttributes, b.size() - batch_layout::kAttributes));
  auto copy = b;
  auto r = log->append(b);
  REQUIRE(r.has_value());
  CHECK(r->base_offset.value == 2);
  auto stored = read_all_batches(*log, 2);
  REQUIRE(stored.size() == 1);
  RecordBatchView w(copy);
  w.set_base_offset(2);
  w.set_partition_leader_epoch(0);
  CHECK(stored[0] == copy);
  auto t = log->offset_for_timestamp(250);
  CHECK(t.offset.value == 2);  // batch level: its first offset
  auto m = log->max_timestamp_offset();
  CHECK(m.timestamp == 300);
  CHECK(m.offset.value == 3);  // batch level: its last offset
}
