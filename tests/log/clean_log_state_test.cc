// A clean close's record of each log (clean_log_state.h): the file's round
// trip and its refusals, a log restored from it served and appended to as a
// log loaded the normal way, the fallbacks when the directory changed, and
// the LogManager writing it at shutdown and dropping it at start.
#include "log/clean_log_state.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <thread>

#include "log/file_util.h"
#include "log/log_manager.h"
#include "test_util.h"

using namespace skiff;
using namespace skiff::storage;
using namespace skiff::storage::test;
namespace fs = std::filesystem;

namespace Catch {
template <>
struct StringMaker<CleanLogState> {
  static std::string convert(const CleanLogState& s) {
    return "{base " + std::to_string(s.active_base) + " next " + std::to_string(s.next_offset) + " bytes " +
           std::to_string(s.log_bytes) + " oi " + std::to_string(s.offset_entries) + " ti " +
           std::to_string(s.time_entries) + " maxts " + std::to_string(s.max_timestamp) + "@" +
           std::to_string(s.max_timestamp_offset) + " roll " + std::to_string(s.roll_base_ms) + " since " +
           std::to_string(s.bytes_since_index) + (s.no_producers ? " none}" : " producers}");
  }
};
}  // namespace Catch

namespace {

CleanLogState sample(int64_t base) {
  CleanLogState s;
  s.active_base = base;
  s.next_offset = base + 7;
  s.log_bytes = 12345;
  s.offset_entries = 3;
  s.time_entries = 2;
  s.max_timestamp = 1'700'000'000'123;
  s.max_timestamp_offset = base + 6;
  s.roll_base_ms = 1'700'000'000'000;
  s.bytes_since_index = 77;
  s.no_producers = base % 2 == 0;
  return s;
}

std::shared_ptr<const LogConfig> clean_test_config() {
  return config_with([](LogConfig& c) {
    c.segment_bytes = 20000;
    c.index_interval_bytes = 500;
  });
}

// Appends `n` batches of 3 records of 400 bytes, timestamps from `ts`.
void fill(Log& log, int n, int64_t ts) {
  for (int i = 0; i < n; ++i)
    REQUIRE(append_tmp(log, make_test_batch(3, 400, ts + i, static_cast<uint64_t>(i))).has_value());
}

// What a reader sees: the end, the segments, and the offsets found by
// timestamp (through the time and offset indexes) and by offset.
struct Shape {
  int64_t leo = 0, segments = 0;
  std::vector<int64_t> by_time;
  std::vector<size_t> reads_from;
  auto operator<=>(const Shape&) const = default;
};

// Record timestamps of the tests: recent, so that no segment is old enough
// to roll by segment.ms (a normal load dates a segment by its first batch,
// a restored one keeps the date the running log gave it).
const int64_t kRecentTs = wall_clock_ms() - 3'600'000;

Shape shape(const Log& log) {
  Shape s{log.log_end_offset().value, static_cast<int64_t>(log.segment_count()), {}, {}};
  for (int64_t ts = kRecentTs; ts < kRecentTs + 1'100; ts += 13)
    s.by_time.push_back(log.offset_for_timestamp(ts).offset.value);
  for (int64_t o = 0; o < s.leo; o += 17) s.reads_from.push_back(read_all_batches(log, o).size());
  return s;
}

std::shared_ptr<Log> reopen(const fs::path& dir, const std::optional<CleanLogState>& clean) {
  LogLoadParams p;
  p.topic = "t";
  p.clean_shutdown = true;
  return Log::open(dir, p, clean_test_config(), clean ? &*clean : nullptr);
}

}  // namespace

TEST_CASE("clean log states: the file round-trips, and a damaged one is ignored", "[log][clean-state]") {
  CleanLogStates states{{"a-0", sample(0)}, {"topic.with.dots-12", sample(1'000'001)}};
  const std::string bytes = encode_clean_log_states(states);
  CHECK(decode_clean_log_states(bytes) == states);
  CHECK(decode_clean_log_states(encode_clean_log_states({})).empty());
  for (size_t cut : {size_t{0}, size_t{10}, bytes.size() - 1})
    CHECK(decode_clean_log_states(bytes.substr(0, cut)).empty());
  for (size_t at : {size_t{0}, size_t{5}, bytes.size() / 2, bytes.size() - 1}) {
    std::string bad = bytes;
    bad[at] = static_cast<char>(bad[at] ^ 0x20);
    CHECK(decode_clean_log_states(bad).empty());
  }
  TempDir d;
  CHECK(read_clean_log_states(d.path()).empty());
  REQUIRE(write_clean_log_states(d.path(), states).has_value());
  CHECK(read_clean_log_states(d.path()) == states);
}

// Every file of a directory, by name.
std::map<std::string, std::string> clean_twin_files(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    std::string bytes;
    REQUIRE(read_small_file(e.path(), bytes));
    out[e.path().filename().string()] = bytes;
  }
  return out;
}

TEST_CASE("clean log states: a restored log is the log a normal load gives, and takes appends", "[log][clean-state]") {
  // Two twins written alike; after a clean close one is restored from its
  // record, the other loaded the normal way; both take the same appends.
  TempDir a, b;
  std::optional<CleanLogState> clean;
  for (const auto* d : {&b, &a}) {
    auto log = open_log(d->path(), clean_test_config());
    fill(*log, 40, kRecentTs);
    REQUIRE(log->segment_count() > 1);
    log->close();
    clean = log->clean_state();  // a's, the last
    REQUIRE(clean);
    CHECK(clean->next_offset == log->log_end_offset().value);
    CHECK(clean->no_producers);
  }
  auto restored = reopen(a.path(), clean);
  auto plain = reopen(b.path(), std::nullopt);
  CHECK(restored->load_stats().active_restored);
  CHECK_FALSE(plain->load_stats().active_restored);
  CHECK(shape(*restored) == shape(*plain));
  // Appends extend the indexes first, then go on as on any active segment.
  fill(*restored, 40, kRecentTs + 1'000);
  fill(*plain, 40, kRecentTs + 1'000);
  CHECK(restored->log_end_offset().value == clean->next_offset + 120);
  CHECK(shape(*restored) == shape(*plain));
  restored->close();
  plain->close();
  auto again = restored->clean_state();
  REQUIRE(again);
  auto plain_again = plain->clean_state();
  REQUIRE(plain_again);
  plain_again->roll_base_ms = again->roll_base_ms;  // the two segments were made a few ms apart
  CHECK(*again == *plain_again);
  restored.reset();
  plain.reset();
  // Every index entry where the normal load puts it.
  const auto fa = clean_twin_files(a.path()), fb = clean_twin_files(b.path());
  for (const auto& [name, bytes] : fb) {
    INFO(name);
    CHECK(fa.count(name) == 1);
    if (fa.count(name)) CHECK(fa.at(name) == bytes);
  }
  CHECK(fa.size() == fb.size());
  auto second = reopen(a.path(), again);
  CHECK(second->load_stats().active_restored);
  CHECK(shape(*second) == shape(*reopen(b.path(), std::nullopt)));
}

TEST_CASE("clean log states: producers and a changed directory load the normal way", "[log][clean-state]") {
  TempDir d;
  auto log = open_log(d.path(), clean_test_config());
  fill(*log, 5, kRecentTs);
  REQUIRE(append_tmp(*log, txn_batch(9, 0, 0)).has_value());
  REQUIRE(marker(*log, 9, 0, true).has_value());
  log->close();
  auto clean = log->clean_state();
  REQUIRE(clean);
  CHECK_FALSE(clean->no_producers);
  log.reset();

  SECTION("producers are read from the snapshot") {
    auto r = reopen(d.path(), clean);
    CHECK(r->load_stats().active_restored);
    CHECK(r->producer_state(9).has_value());
  }
  SECTION("a record of another segment is not used") {
    CleanLogState other = *clean;
    other.active_base += 1;
    auto r = reopen(d.path(), other);
    CHECK_FALSE(r->load_stats().active_restored);
    CHECK(r->log_end_offset().value == clean->next_offset);
  }
  SECTION("an unclean start ignores the record") {
    LogLoadParams p;
    p.topic = "t";
    auto r = Log::open(d.path(), p, clean_test_config(), &*clean);
    CHECK_FALSE(r->load_stats().active_restored);
    CHECK(r->log_end_offset().value == clean->next_offset);
  }
}

TEST_CASE("clean log states: the log manager writes them at shutdown and drops them at start", "[log][clean-state]") {
  TempDir d;
  LogManagerConfig c;
  c.log_dirs = {d / "data"};
  c.node_id = 1;
  c.defaults.message_timestamp_after_max_ms = LogConfig::kMaxLong;
  int64_t leo = 0;
  {
    LogManager m(c);
    REQUIRE(m.create_topic("orders", 3));
    auto log = m.get_log("orders", 1);
    fill(*log, 10, kRecentTs);
    leo = log->log_end_offset().value;
    m.shutdown();
  }
  const auto states = read_clean_log_states(d / "data");
  REQUIRE(states.size() == 3);
  CHECK(states.at("orders-1").next_offset == leo);
  {
    LogManager m(c);
    CHECK_FALSE(fs::exists(d / "data" / kCleanLogStateFile));  // dropped with the marker
    auto log = m.get_log("orders", 1);
    CHECK(log->load_stats().active_restored);
    CHECK(log->log_end_offset().value == leo);
    fill(*log, 2, kRecentTs + 100);
    leo = log->log_end_offset().value;
  }  // the destructor shuts down cleanly too
  {
    LogManager m(c);
    CHECK(m.get_log("orders", 1)->log_end_offset().value == leo);
    CHECK(m.get_log("orders", 1)->load_stats().active_restored);
  }
}

// The first append makes a restored segment's indexes appendable while
// fetches may be reading them through their mapping: the mapping must stay.
TEST_CASE("clean log states: readers of a restored segment read on through its first appends", "[log][clean-state]") {
  TempDir d;
  auto log = open_log(d.path(), clean_test_config());
  fill(*log, 40, kRecentTs);
  log->close();
  auto clean = log->clean_state();
  REQUIRE(clean);
  log.reset();
  auto restored = reopen(d.path(), clean);
  REQUIRE(restored->load_stats().active_restored);
  const int64_t base = clean->active_base, end = clean->next_offset;
  REQUIRE(end - base >= 6);
  CHECK_FALSE(read_all_batches(*restored, base).empty());  // maps the active segment's indexes
  std::atomic<bool> stop{false};
  std::atomic<int> bad{0}, reads{0};
  std::vector<std::thread> readers;
  readers.reserve(2);
  for (int t = 0; t < 2; ++t) {
    readers.emplace_back([&, t] {
      for (int64_t i = t; !stop.load(); ++i) {
        auto r = restored->read(Offset(base + i % (end - base)), 1 << 16);
        if (!r || r->slice.empty()) bad.fetch_add(1);
        reads.fetch_add(1);
        (void)restored->offset_for_timestamp(kRecentTs + i % 40);
      }
    });
  }
  while (reads.load() < 50) std::this_thread::yield();
  fill(*restored, 40, kRecentTs + 1'000);
  while (reads.load() < 200) std::this_thread::yield();
  stop = true;
  for (auto& r : readers) r.join();
  CHECK(bad.load() == 0);
  CHECK(restored->log_end_offset().value == end + 120);
}
