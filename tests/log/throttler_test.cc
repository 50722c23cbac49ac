// Throttler (log.cleaner.io.max.bytes.per.second): Kafka's arithmetic on a
// fake clock, and the cleaner held to the rate on a real one.
#include "log/throttler.h"

#include <catch2/catch.hpp>
#include <chrono>

#include "cleaner_test_util.h"

using namespace skiff;
using namespace skiff::storage;
using namespace skiff::storage::test;

TEST_CASE("Throttler sleeps what brings an interval back to the rate", "[log][cleaner]") {
  int64_t now_ns = 0;
  std::vector<int64_t> sleeps;
  Throttler t(
      1'000'000.0, 300, [&] { return now_ns; },
      [&](int64_t ms) {
        sleeps.push_back(ms);
        now_ns += ms * 1'000'000;
      });
  t.maybe_throttle(500'000);  // within the interval: nothing checked
  now_ns += 200'000'000;
  t.maybe_throttle(100'000);
  CHECK(sleeps.empty());
  now_ns += 200'000'000;
  t.maybe_throttle(300'000);  // 900 KB in 400 ms, 900 ms of work at 1 MB/s: sleep 900 - 400 = 500 ms
  REQUIRE(sleeps == std::vector<int64_t>{500});
  now_ns += 400'000'000;  // a new interval under the rate: no sleep
  t.maybe_throttle(100'000);
  CHECK(sleeps.size() == 1);
  Throttler unlimited(1.7976931348623157e308);
  CHECK(unlimited.unlimited());
}

TEST_CASE("The cleaner keeps to log.cleaner.io.max.bytes.per.second", "[log][cleaner]") {
  TempDir dir;
  auto log = open_log(dir / "t-0", compact_config());
  const int64_t ts = wall_clock_ms();
  for (int i = 0; i < 40; ++i) {
    BatchBuilder b;
    for (int k = 0; k < 20; ++k) b.add("k" + std::to_string(k), std::string(1000, 'a' + i % 26), ts);
    REQUIRE(append_tmp(*log, b.build()).has_value());
    if (i % 10 == 9) REQUIRE(outcome(log->roll(ts)) == LogErrc::kNone);
  }
  // A fake clock: 0.1 ms per reading plus the sleeps, which are only added up.
  int64_t fake_ns = 0, slept_ms = 0;
  CleanerConfig cc;
  cc.dedupe_buffer_bytes = 1 << 20;
  cc.throttler = std::make_shared<Throttler>(
      1'000'000.0, 1, [&] { return fake_ns += 100'000; },
      [&](int64_t ms) { slept_ms += ms, fake_ns += ms * 1'000'000; });
  Cleaner c(cc);
  CleanResult r;
  clean_all(*log, c, -1, ts, &r);
  // Every byte the cleaner read (to map, to rewrite) and wrote is paid for
  // at 1 MB/s, but for the last interval, still open (< 10 readings of 20 KB).
  const double io_ms = static_cast<double>(r.bytes_read + r.bytes_written) / 1000.0;
  REQUIRE(io_ms > 1000);
  CHECK(static_cast<double>(slept_ms) >= io_ms - 250);
  CHECK(static_cast<double>(slept_ms) <= io_ms);
}
