// Readers, a writer, retention and flushes running at once: readers must only
// ever see whole, valid batches with contiguous offsets (also run under TSan).
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

#include "test_util.h"

using namespace skiff;
using namespace skiff::storage;
using namespace skiff::storage::test;

TEST_CASE("concurrent append, read, retention and flush", "[log][concurrency]") {
  TempDir dir;
  auto log = open_log(dir.path(), config_with([](LogConfig& c) {
                        c.segment_bytes = 16 * 1024;
                        c.retention_bytes = 64 * 1024;
                        c.retention_ms = -1;
                        c.flush_ms = 0;
                      }));
  std::atomic<bool> done{false};
  std::atomic<int64_t> bad{0}, reads{0};
  std::thread writer([&] {
    for (int i = 0; i < 1500; ++i) {
      auto b = make_test_batch(1 + i % 4, 100 + (i * 37) % 2000, 1000 + i, static_cast<uint64_t>(i));
      if (!log->append(b).has_value()) ++bad;
    }
    done = true;
  });
  std::thread janitor([&] {
    while (!done) {
      log->delete_old_segments(wall_clock_ms());
      log->maybe_flush(wall_clock_ms());
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  std::vector<std::thread> readers;
  for (int r = 0; r < 2; ++r) {
    readers.emplace_back([&, r] {
      std::mt19937 rng(r);
      while (!done) {
        int64_t start = log->log_start_offset().value, end = log->log_end_offset().value;
        if (end <= start) continue;
        int64_t o = start + static_cast<int64_t>(rng() % static_cast<uint64_t>(end - start));
        auto res = log->read(Offset(o), 1 + rng() % 20000);
        if (outcome(res) == LogErrc::kOffsetOutOfRange) continue;  // retention moved the start meanwhile
        if (outcome(res) != LogErrc::kNone || res->slice.empty()) {
          ++bad;
          continue;
        }
        auto bytes = res->slice.read_all();
        BatchIterator it(bytes);
        RecordBatchView v;
        int64_t expect = -1;
        bool first = true;
        while (it.next(v)) {
          if (!v.validate_header_and_crc()) ++bad;
          if (first && (v.base_offset() > o || v.last_offset() < o)) ++bad;
          if (!first && v.base_offset() != expect) ++bad;
          expect = v.next_offset();
          first = false;
        }
        if (!it.error()) ++bad;
        ++reads;
      }
    });
  }
  writer.join();
  janitor.join();
  for (auto& t : readers) t.join();
  log->delete_old_segments(wall_clock_ms());
  CHECK(bad == 0);
  CHECK(reads > 0);
  CHECK(log->log_start_offset().value > 0);
  CHECK(log->size_in_bytes() <= 64 * 1024 + 16 * 1024);
}

TEST_CASE("flush.ms and rolled segments are flushed by maybe_flush", "[log][flush]") {
  TempDir dir;
  auto log = open_log(dir.path(), config_with([](LogConfig& c) { c.segment_bytes = 4000; }));
  for (int i = 0; i < 5; ++i) REQUIRE(append_tmp(*log, make_test_batch(1, 1500, 1000 + i)).has_value());
  CHECK(log->segment_count() >= 2);
  CHECK(log->recovery_point().value == 0);
  log->maybe_flush(wall_clock_ms());  // the roll asked for a flush of the old segment
  CHECK(log->recovery_point().value >= log->segment_base_offsets()[1]);
  REQUIRE(append_tmp(*log, make_test_batch(1, 10, 2000)).has_value());
  log->maybe_flush(wall_clock_ms());  // flush.ms = max: nothing more
  CHECK(log->recovery_point().value < log->log_end_offset().value);
  log->set_config(config_with([](LogConfig& c) {
    c.segment_bytes = 4000;
    c.flush_ms = 0;
  }));
  log->maybe_flush(wall_clock_ms());
  CHECK(log->recovery_point().value == log->log_end_offset().value);
}

// A read is bounded by the end it reports (res->log_end_offset) and by the
// read bound it is given (read_committed passes the LSO), and finds what
// lies below them, as Kafka bounds a fetch by the high watermark's
// position, while appends run beside it. A read past its end hands a
// consumer offsets it was not told of (its next fetch can land past the
// end and be refused as out of range), and a read_committed one a
// transaction's batch the LSO excluded.
TEST_CASE("a read returns what lies below the end it reports, and nothing past it", "[log][concurrency]") {
  TempDir dir;
  auto log = open_log(dir.path(), config_with([](LogConfig& c) { c.segment_bytes = 256 * 1024; }));
  std::atomic<bool> done{false};
  std::atomic<int64_t> past_end{0}, past_bound{0}, missing{0}, reads{0};
  std::thread writer([&] {
    for (int i = 0; i < 20000; ++i) (void)append_tmp(*log, make_test_batch(1, 60, 1000 + i, static_cast<uint64_t>(i)));
    done = true;
  });
  std::vector<std::thread> readers;
  for (int r = 0; r < 2; ++r) {
    readers.emplace_back([&, r] {
      while (!done) {
        const Offset bound = log->last_stable_offset();  // what a read_committed fetch passes
        const int64_t o = std::max<int64_t>(0, bound.value - 1 - r);
        auto res = r == 0 ? log->read(Offset(o), 1 << 20) : log->read(Offset(o), 1 << 20, bound);
        if (outcome(res) != LogErrc::kNone) continue;
        if (res->slice.empty()) {  // only at or past the end reported, or the bound given
          const int64_t below = r == 1 ? std::min(bound.value, res->log_end_offset.value) : res->log_end_offset.value;
          if (o < below) ++missing;
          continue;
        }
        auto bytes = res->slice.read_all();
        BatchIterator it(bytes);
        RecordBatchView v;
        while (it.next(v)) {
          if (v.last_offset() >= res->log_end_offset.value) ++past_end;
          if (r == 1 && v.base_offset() >= bound.value) ++past_bound;
        }
        ++reads;
      }
    });
  }
  writer.join();
  for (auto& t : readers) t.join();
  CHECK(reads > 0);
  CHECK(past_end == 0);
  CHECK(past_bound == 0);
  CHECK(missing == 0);
}
