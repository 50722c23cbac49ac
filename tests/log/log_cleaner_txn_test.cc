// The log cleaner on transactional data (Kafka's CleanedTransactionMetadata),
// checked against an exact model built from what the test wrote:
//  - nothing at or past the LSO is cleaned;
//  - an aborted transaction's records go (an empty batch stays where it held
//    its producer's last sequence), and never hide an older record;
//  - committed transactional records are compacted by key like others;
//  - markers survive the first pass; the first pass that finds no batch of
//    its transaction left stamps a marker with its delete horizon, a pass at
//    or past the horizon removes it, and the .txnindex keeps exactly the
//    aborts whose marker stayed (also on disk).
#include <catch2/catch.hpp>
#include <random>
#include <set>

#include "cleaner_test_util.h"
#include "log/control_batch.h"

using namespace skiff::storage;
using namespace skiff::storage::test;

namespace {

struct WBatch {
  int64_t pid = -1;
  bool txn = false, control = false, commit = false, aborted = false;
  int64_t base = 0, last = 0;
};

struct Workload {
  std::vector<WBatch> batches;
  std::map<int64_t, int64_t> open;  // pid -> first offset of its open transaction
};

// Plain batches, and transactional ones from 3 producers with commits and
// aborts, over 8 keys (10% tombstones); a roll every ~6 batches.
Workload txn_workload(Log& log, std::mt19937& rng, int steps, Compression codec) {
  Workload w;
  std::map<int64_t, int32_t> seq;
  std::map<int64_t, std::vector<size_t>> open_batches;
  int64_t ts = kT0;
  auto records = [&](BatchBuilder& b) {
    int n = 1 + static_cast<int>(rng() % 3);
    for (int i = 0; i < n; ++i) {
      std::string key = "k" + std::to_string(rng() % 8);
      bool del = rng() % 10 == 0;
      b.add(key, del ? std::nullopt : std::optional<std::string>("v" + std::to_string(rng() % 100000)), ++ts);
    }
    return n;
  };
  for (int step = 0; step < steps; ++step) {
    int64_t pid = 100 + static_cast<int64_t>(rng() % 4);  // 103: plain
    WBatch wb;
    if (pid == 103) {
      BatchBuilder b;
      records(b);
      auto r = append_tmp(log, with_codec(b.build(), codec));
      REQUIRE(r.has_value());
      wb.base = r->base_offset.value, wb.last = r->last_offset.value;
    } else if (w.open.count(pid) && rng() % 3 == 0) {
      wb.pid = pid, wb.txn = wb.control = true, wb.commit = rng() % 5 < 3;
      auto r = log.append_marker(pid, 0, wb.commit, 0, 1, 0, ++ts);
      REQUIRE(r.has_value());
      wb.base = wb.last = r->base_offset.value;
      for (size_t i : open_batches[pid]) w.batches[i].aborted = !wb.commit;
      open_batches.erase(pid);
      w.open.erase(pid);
    } else {
      BatchBuilder b;
      b.producer(pid, 0, seq[pid]).transactional(true);
      seq[pid] += records(b);
      auto r = append_tmp(log, with_codec(b.build(), codec));
      REQUIRE(r.has_value());
      wb.pid = pid, wb.txn = true, wb.base = r->base_offset.value, wb.last = r->last_offset.value;
      w.open.try_emplace(pid, wb.base);
      open_batches[pid].push_back(w.batches.size());
    }
    w.batches.push_back(wb);
    if (rng() % 6 == 0) REQUIRE(outcome(log.roll(ts)) == LogErrc::kNone);
  }
  return w;
}

const WBatch* batch_of(const Workload& w, int64_t offset) {
  for (const auto& b : w.batches)
    if (b.base <= offset && offset <= b.last) return &b;
  return nullptr;
}

// End of the segments a pass below `end` rewrites (the one holding end included).
int64_t rewrite_end(Log& log, int64_t end) {
  int64_t r = end;
  auto segs = log.inactive_segments();
  for (size_t i = 0; i < segs.size(); ++i)
    if (segs[i]->base_offset().value < end)
      r = i + 1 < segs.size() ? segs[i + 1]->base_offset().value : log.active_base_offset();
  return std::max(r, end);
}

// Pass 1 (markers and tombstones kept): aborted records below the rewrite end
// go; other records below `end` keep only the latest per key among them.
std::vector<Rec> model_pass1(const std::vector<Rec>& before, const Workload& w, int64_t end, int64_t rewritten) {
  auto aborted = [&](int64_t o) {
    auto* b = batch_of(w, o);
    return b && b->aborted && o < rewritten;
  };
  std::map<std::string, int64_t> latest;
  for (const auto& r : before)
    if (r.offset < end && !aborted(r.offset) && !batch_of(w, r.offset)->control) latest[*r.key] = r.offset;
  std::vector<Rec> out;
  for (const auto& r : before) {
    if (aborted(r.offset)) continue;
    if (r.offset < end && !batch_of(w, r.offset)->control && latest[*r.key] != r.offset) continue;
    out.push_back(r);
  }
  return out;
}

struct BatchInfo {
  int64_t base, last, pid;
  bool control, empty;
};

std::vector<BatchInfo> batch_infos(const Log& log) {
  std::vector<BatchInfo> out;
  for (auto& bytes : read_all_batches(log)) {
    RecordBatchView v(bytes);
    REQUIRE(v.crc_valid());
    out.push_back({v.base_offset(), v.last_offset(), v.producer_id(), v.is_control(), v.record_count() == 0});
  }
  return out;
}

// Passes 2 and 3 (past every horizon of pass 1): tombstones below end go in
// pass 2; a marker in the rewritten segments (below `rewritten`: as Kafka, a
// marker's offset is not held to the map's end) goes (pass 2 stamps it, pass
// 3 removes it) iff no batch of its producer lies between its previous marker
// and it after pass 1.
std::vector<Rec> model_pass2(const std::vector<Rec>& after1, const std::vector<BatchInfo>& batches, const Workload& w,
                             int64_t end, int64_t rewritten) {
  std::set<int64_t> gone;
  std::map<int64_t, bool> seen;  // pid -> a batch since its last marker
  for (const auto& b : batches) {
    if (b.pid < 0) continue;
    if (!b.control) {
      seen[b.pid] = true;
      continue;
    }
    if (!seen[b.pid] && b.base < rewritten) gone.insert(b.base);
    seen[b.pid] = false;
  }
  std::vector<Rec> out;
  for (const auto& r : after1) {
    bool control = batch_of(w, r.offset)->control;
    if (control && gone.count(r.offset)) continue;
    if (!control && r.offset < end && !r.value) continue;
    out.push_back(r);
  }
  return out;
}

std::vector<AbortedTxn> all_aborts(const Log& log) {
  return log.collect_aborted_txns(Offset(0), Offset(log.log_end_offset().value + 1));
}

}  // namespace

TEST_CASE("The cleaner removes aborted records, compacts committed ones, stops at the LSO", "[log][cleaner][txn]") {
  for (unsigned seed = 1; seed <= 12; ++seed) {
    CAPTURE(seed);
    TempDir dir;
    auto log = open_log(dir / "t-0", compact_config([](LogConfig& c) { c.delete_retention_ms = 1'000'000; }));
    std::mt19937 rng(seed);
    const Compression codec = seed % 3 == 0 ? Compression::kLz4 : Compression::kNone;
    Workload w = txn_workload(*log, rng, 150, codec);
    REQUIRE(outcome(log->roll(kT0)) == LogErrc::kNone);
    const int64_t lso = log->last_stable_offset().value;
    int64_t expect_lso = log->log_end_offset().value;
    for (const auto& [pid, first] : w.open) expect_lso = std::min(expect_lso, first);
    REQUIRE(lso == expect_lso);
    const auto before = read_records(*log);
    const auto aborts_before = all_aborts(*log);
    const auto last_of = log->producer_last_offsets();

    Cleaner cleaner(CleanerConfig{1 << 20, 0.9, 4096, {}});
    auto p = clean_all(*log, cleaner, -1, kT0);
    REQUIRE(p.first_uncleanable == std::min(lso, log->active_base_offset()));
    const int64_t rewritten = rewrite_end(*log, p.first_uncleanable);
    auto after1 = read_records(*log);
    CHECK(after1 == model_pass1(before, w, p.first_uncleanable, rewritten));
    // Empty batches: exactly the producers' last batches that lost every record.
    auto infos = batch_infos(*log);
    for (const auto& b : infos) {
      if (!b.empty) continue;
      auto it = last_of.find(b.pid);
      CHECK((it != last_of.end() && it->second == b.last));
    }
    CHECK(all_aborts(*log) == aborts_before);  // every ABORT marker is still there

    // Passes 2 and 3 over the same clean range (nothing new is dirty: an
    // empty map), past pass 1's horizons, delete.retention.ms = 0.
    log->set_config(compact_config([](LogConfig& c) { c.delete_retention_ms = 0; }));
    const int64_t later = kT0 + 1'000'000;
    REQUIRE(cleaner.clean_once(*log, p.first_uncleanable, p.first_uncleanable, later).status.has_value());
    for (const auto& r : read_records(*log))
      CHECK((r.value || r.offset >= p.first_uncleanable || batch_of(w, r.offset)->control));  // tombstones gone
    REQUIRE(cleaner.clean_once(*log, p.first_uncleanable, p.first_uncleanable, later).status.has_value());
    auto after2 = read_records(*log);
    CHECK(after2 == model_pass2(after1, infos, w, p.first_uncleanable, rewritten));
    // The .txnindex lists exactly the aborts whose marker stayed.
    std::set<int64_t> markers;
    for (const auto& b : batch_infos(*log))
      if (b.control && !b.empty) markers.insert(b.base);
    std::vector<AbortedTxn> expect_aborts;
    for (const auto& t : aborts_before)
      if (markers.count(t.last_offset)) expect_aborts.push_back(t);
    CHECK(all_aborts(*log) == expect_aborts);
    log->close();
    log = open_log(dir / "t-0", compact_config(), true);
    CHECK(read_records(*log) == after2);
    CHECK(all_aborts(*log) == expect_aborts);
    CHECK(log->last_stable_offset().value == lso);
  }
}
