// The cleaner's swap protocol under a simulated kill -9 at each step: the
// files are left exactly as the step left them (no close, no more renames),
// the log is reopened as after a crash, and it must hold either the records
// before cleaning or those after, never a mix, with valid batches and indexes.
#include <catch2/catch.hpp>
#include <set>

#include "cleaner_test_util.h"
#include "log/cleaner_recovery.h"
#include "log/control_batch.h"

using namespace skiff::storage;
using namespace skiff::storage::test;
namespace fs = std::filesystem;

namespace {

void workload(Log& log) {
  std::mt19937 rng(9);
  int64_t ts = kT0;
  for (int i = 0; i < 120; ++i) {
    BatchBuilder b;
    for (int k = 0; k < 3; ++k) {
      bool del = rng() % 8 == 0;
      b.add(BuilderRecord{"k" + std::to_string(rng() % 60),
                          del ? std::nullopt : std::optional<std::string>(std::string(50, 'a' + i % 26)),
                          ++ts,
                          {}});
    }
    REQUIRE(append_tmp(log, b.build()).has_value());
    if (i % 10 == 9) REQUIRE(outcome(log.roll(ts)) == LogErrc::kNone);
  }
}

std::vector<std::string> files_of(const fs::path& dir) {
  std::vector<std::string> v;
  for (const auto& e : fs::directory_iterator(dir)) v.push_back(e.path().filename().string());
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace

namespace {

auto group_config() {
  return compact_config([](LogConfig& c) { c.segment_bytes = 8000; });
}

// Cleans a fresh copy of the workload, "killed" at `step` of the swap of the
// `group`-th group (no kill if there are fewer groups), and reopens it as
// after a crash. Returns the records, checking that no protocol file is left
// and that the index finds every record.
std::vector<Rec> crash_and_reopen(int group, int step) {
  TempDir dir;
  auto log = open_log(dir / "t-0", compact_config());
  workload(*log);
  log->set_config(group_config());
  CleanerConfig cc;
  int calls = 0;
  cc.crash_at = [&](int s) { return s == step && ++calls == group; };
  Cleaner c(cc);
  CleanResult r = c.clean(*log, durable_point(*log, -1, kT0), kT0);
  REQUIRE((r.status || r.status.error().sys_errno == ECANCELED));
  log.reset();  // no close: a kill writes nothing more
  auto reopened = open_log(dir / "t-0", compact_config(), /*clean=*/false, 0);
  for (const auto& f : files_of(dir / "t-0")) {
    CHECK(f.find(".cleaned") == std::string::npos);
    CHECK(f.find(".swap") == std::string::npos);
  }
  auto recs = read_records(*reopened);
  for (const auto& x : recs) {
    auto rr = reopened->read(Offset(x.offset), 1);
    REQUIRE(outcome(rr) == LogErrc::kNone);
    auto bytes = rr->slice.read_all();
    RecordBatchView v(bytes);
    REQUIRE(v.base_offset() <= x.offset);
    REQUIRE(v.last_offset() >= x.offset);
  }
  // A later cleaning of the recovered log reaches the same end state.
  Cleaner again(CleanerConfig{});
  reopened->set_config(group_config());
  REQUIRE(again.clean(*reopened, durable_point(*reopened, -1, kT0), kT0).status.has_value());
  auto final_recs = read_records(*reopened);
  TempDir ref;
  auto full = open_log(ref / "t-0", compact_config());
  workload(*full);
  full->set_config(group_config());
  Cleaner c2(CleanerConfig{});
  REQUIRE(c2.clean(*full, durable_point(*full, -1, kT0), kT0).status.has_value());
  CHECK(final_recs == read_records(*full));
  return recs;
}

}  // namespace

TEST_CASE("A kill at any step of the cleaner's swap leaves old or new segments, never a mix", "[log][cleaner]") {
  std::vector<Rec> before;
  {
    TempDir d;
    auto log = open_log(d / "t-0", compact_config());
    workload(*log);
    REQUIRE(log->segment_count() >= 10);
    before = read_records(*log);
  }
  // State k: the first k groups swapped in, the rest old.
  std::vector<std::vector<Rec>> states;
  for (int g = 1; g <= 3; ++g) states.push_back(crash_and_reopen(g, 1));
  CHECK(states[0] == before);
  CHECK(states[1] != states[0]);
  CHECK(states[2] != states[1]);
  for (int g = 1; g <= 2; ++g) {
    for (int step = 2; step <= 5; ++step) {
      INFO("group " << g << " step " << step);
      CHECK(crash_and_reopen(g, step) == states[g]);  // committed from the .swap rename on
    }
  }
}

TEST_CASE("Startup completes a .swap and deletes the old segments it covers", "[log][cleaner]") {
  TempDir dir;
  const fs::path d = dir / "t-0";
  fs::create_directories(d);
  auto write = [&](const std::string& name, std::vector<uint8_t> bytes) {
    REQUIRE(write_file_durably(d / name, std::string(bytes.begin(), bytes.end())) == 0);
  };
  auto batch_at = [](int64_t base, int n) {
    auto b = make_test_batch(n, 10, kT0);
    RecordBatchView(b).set_base_offset(base);
    return b;
  };
  write(segment_file_name(0, ".log"), batch_at(0, 5));
  write(segment_file_name(5, ".log"), batch_at(5, 5));
  write(segment_file_name(10, ".log"), batch_at(10, 5));
  write(segment_file_name(0, ".index"), {});
  // The swap holds offsets 3 and 7 only (a cleaned 0..9): old 0 and 5 go, 10 stays.
  auto swap = batch_at(3, 1);
  auto second = batch_at(7, 1);
  swap.insert(swap.end(), second.begin(), second.end());
  write(segment_file_name(0, ".log") + ".swap", swap);
  write(segment_file_name(15, ".log") + ".cleaned", batch_at(15, 1));
  REQUIRE(finish_interrupted_cleaning(d) == 1);
  CHECK(files_of(d) == std::vector<std::string>{segment_file_name(0, ".log"), segment_file_name(10, ".log")});
  CHECK(segment_file_next_offset(d / segment_file_name(0, ".log"), 0) == 8);
  auto log = open_log(d, compact_config());
  CHECK(log->log_end_offset().value == 15);
  auto recs = read_records(*log);
  REQUIRE(recs.size() == 7);
  CHECK(recs[0].offset == 3);
  CHECK(recs[1].offset == 7);
}

namespace {

// Transactions from two producers (about half aborted) between plain
// batches over the same keys, a roll every 5 batches; all closed at the end.
void txn_workload(Log& log) {
  std::mt19937 rng(5);
  int64_t ts = kT0;
  std::map<int64_t, int32_t> seq;
  std::map<int64_t, bool> open;
  for (int i = 0; i < 150; ++i) {
    const int64_t pid = 1 + static_cast<int64_t>(rng() % 3);  // 3: plain
    if (pid != 3 && open[pid] && rng() % 2 == 0) {
      REQUIRE(log.append_marker(pid, 0, rng() % 2 == 0, 0, 1, 0, ++ts).has_value());
      open[pid] = false;
    } else {
      BatchBuilder b;
      if (pid != 3) b.producer(pid, 0, seq[pid]).transactional(true);
      for (int k = 0; k < 2; ++k) b.add("k" + std::to_string(rng() % 20), std::string(40, 'a' + i % 26), ++ts);
      if (pid != 3) seq[pid] += 2, open[pid] = true;
      REQUIRE(append_tmp(log, b.build()).has_value());
    }
    if (i % 5 == 4) REQUIRE(outcome(log.roll(ts)) == LogErrc::kNone);
  }
  for (auto& [pid, o] : open)
    if (o) REQUIRE(log.append_marker(pid, 0, false, 0, 1, 0, ++ts).has_value());
  REQUIRE(outcome(log.roll(ts)) == LogErrc::kNone);
}

// Every .txnindex entry sits in the segment holding its ABORT marker, and
// the entries are exactly the original ones whose marker is still there.
void check_txn_index(const Log& log, const std::vector<AbortedTxn>& original) {
  std::set<int64_t> aborts;
  for (auto& bytes : read_all_batches(log)) {
    RecordBatchView v(bytes);
    if (!v.is_control() || v.record_count() == 0) continue;
    auto m = parse_marker(v);
    REQUIRE(m);
    if (!m->commit) aborts.insert(v.base_offset());
  }
  std::vector<AbortedTxn> expect;
  for (const auto& t : original)
    if (aborts.count(t.last_offset)) expect.push_back(t);
  CHECK(log.collect_aborted_txns(Offset(0), Offset(log.log_end_offset().value + 1)) == expect);
  auto segs = log.inactive_segments();
  for (size_t i = 0; i < segs.size(); ++i) {
    int64_t end = i + 1 < segs.size() ? segs[i + 1]->base_offset().value : log.active_base_offset();
    for (const auto& t : log.aborted_txns_of_segment(segs[i]->base_offset().value)) {
      CHECK(t.last_offset >= segs[i]->base_offset().value);
      CHECK(t.last_offset < end);
    }
  }
}

}  // namespace

TEST_CASE("A kill at any step of a swap keeps the .txnindex with its markers", "[log][cleaner][txn]") {
  for (int group = 1; group <= 2; ++group) {
    for (int step = 1; step <= 5; ++step) {
      INFO("group " << group << " step " << step);
      TempDir dir;
      auto log = open_log(dir / "t-0", compact_config());
      txn_workload(*log);
      const auto original = log->collect_aborted_txns(Offset(0), Offset(log->log_end_offset().value + 1));
      REQUIRE(original.size() >= 5);
      log->set_config(group_config());  // groups merge: entries move to the group's base
      Cleaner first(CleanerConfig{});
      auto p = durable_point(*log, -1, kT0);
      REQUIRE(first.clean(*log, p, kT0).status.has_value());
      check_txn_index(*log, original);
      // Pass 2 stamps the ABORT markers (their data went in pass 1) with a
      // delete horizon of kT0; killed mid-swap.
      log->set_config(compact_config([](LogConfig& c) {
        c.segment_bytes = 8000;
        c.delete_retention_ms = 0;
      }));
      CleanerConfig cc;
      int calls = 0;
      cc.crash_at = [&](int s) { return s == step && ++calls == group; };
      Cleaner second(cc);
      CleanResult r = second.clean_once(*log, p.first_uncleanable, p.first_uncleanable, kT0);
      REQUIRE((r.status || r.status.error().sys_errno == ECANCELED));
      log.reset();
      auto reopened = open_log(dir / "t-0", compact_config(), /*clean=*/false, 0);
      for (const auto& f : files_of(dir / "t-0")) {
        CHECK(f.find(".cleaned") == std::string::npos);
        CHECK(f.find(".swap") == std::string::npos);
      }
      check_txn_index(*reopened, original);
      // Finishing the pass, then one at the horizon, removes markers and their
      // entries, and stays consistent.
      reopened->set_config(compact_config([](LogConfig& c) {
        c.segment_bytes = 8000;
        c.delete_retention_ms = 0;
      }));
      Cleaner third(CleanerConfig{});
      REQUIRE(third.clean_once(*reopened, p.first_uncleanable, p.first_uncleanable, kT0).status.has_value());
      check_txn_index(*reopened, original);
      REQUIRE(third.clean_once(*reopened, p.first_uncleanable, p.first_uncleanable, kT0).status.has_value());
      check_txn_index(*reopened, original);
      CHECK(reopened->collect_aborted_txns(Offset(0), Offset(reopened->log_end_offset().value + 1)).size() <
            original.size());
    }
  }
}
