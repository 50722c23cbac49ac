// Model test: random transactional workloads (interleaved producers, data,
// commits, aborts, empty transactions, plain batches, rolls, clean and
// unclean reopens) against a simple oracle of Kafka's rules: the LSO is the
// first offset of the oldest ongoing transaction, else the log end; every
// abort of a non-empty transaction is indexed with the LSO right after it.
#include <catch2/catch.hpp>
#include <map>
#include <random>

#include "tests/log/test_util.h"

using namespace skiff;
using namespace skiff::storage;
using namespace skiff::storage::test;

namespace {

struct Oracle {
  std::map<int64_t, int64_t> open;  // pid -> first offset
  std::map<int64_t, int32_t> seq;   // pid -> next sequence
  std::vector<AbortedTxn> aborted;
  int64_t leo = 0;

  int64_t lso() const {
    int64_t m = leo;
    for (const auto& [pid, first] : open) m = std::min(m, first);
    return m;
  }
};

void data(Log& log, Oracle& o, int64_t pid, bool txn) {
  BatchBuilder b;
  if (pid >= 0) b.producer(pid, 0, o.seq[pid]).transactional(txn);
  b.add("k", "v", wall_clock_ms()).add("k", "v", wall_clock_ms());
  auto bytes = b.build();
  REQUIRE(log.append(bytes).has_value());
  if (pid >= 0) o.seq[pid] += 2;
  if (txn && !o.open.count(pid)) o.open[pid] = o.leo;
  o.leo += 2;
}

void end(Log& log, Oracle& o, int64_t pid, bool commit) {
  REQUIRE(log.append_marker(pid, 0, commit, 0, 1, 0, wall_clock_ms()).has_value());
  const int64_t at = o.leo++;
  auto it = o.open.find(pid);
  if (it == o.open.end()) return;  // empty transaction
  const int64_t first = it->second;
  o.open.erase(it);
  int64_t next_lso = at + 1;
  for (const auto& [p, f] : o.open) next_lso = std::min(next_lso, f);
  if (!commit) o.aborted.push_back({pid, first, at, next_lso});
}

void check(const Log& log, const Oracle& o) {
  REQUIRE(log.log_end_offset().value == o.leo);
  REQUIRE(log.last_stable_offset().value == o.lso());
  REQUIRE(log.collect_aborted_txns(Offset(0), Offset(o.leo + 1)) == o.aborted);
  auto r = log.read(Offset(0), 1 << 24, log.last_stable_offset());
  auto bytes = r->slice.read_all();
  BatchIterator it(bytes);
  RecordBatchView v;
  int64_t next = 0;
  while (it.next(v)) next = v.next_offset();
  CHECK(next <= o.lso());
  if (o.lso() > 0 && log.segment_count() == 1) CHECK(next == o.lso());  // one segment: one read gets all
}

}  // namespace

TEST_CASE("LSO and aborted list follow the oracle through rolls and crashes", "[log][txn][model]") {
  const uint32_t seed = GENERATE(1u, 2u, 3u, 4u);
  std::mt19937 rng(seed);
  TempDir d;
  auto log = open_log(d.path(), config_with());
  Oracle o;
  for (int step = 0; step < 400; ++step) {
    const int64_t pid = 1 + static_cast<int64_t>(rng() % 4);
    const uint32_t op = rng() % 100;
    if (op < 40)
      data(*log, o, pid, true);
    else if (op < 50)
      data(*log, o, o.open.count(pid) ? -1 : pid, false);
    else if (op < 70)
      end(*log, o, pid, true);
    else if (op < 90)
      end(*log, o, pid, false);
    else if (op < 95)
      REQUIRE(outcome(log->roll(wall_clock_ms())) == LogErrc::kNone);
    else {
      const bool clean = rng() % 2;
      if (clean)
        log->close();
      else
        REQUIRE(outcome(log->flush()) == LogErrc::kNone);
      const int64_t leo = log->log_end_offset().value;
      log.reset();
      log = open_log(d.path(), config_with(), clean, clean ? leo : 0);
    }
    INFO("seed " << seed << " step " << step);
    check(*log, o);
  }
}
