// Crash test for transactions: a forked child writes a random transactional
// workload (data of 4 producers, commits, aborts, rolls) through the Log API
// until the parent SIGKILLs it; the parent reopens the log unclean and checks
// the LSO and the aborted list against what the recovered log itself holds
// (a plain replay of its batches), and that a read_committed read stops at
// the LSO. 8 rounds on the same log: each round also recovers the last.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <map>
#include <random>
#include <thread>

#include "log/control_batch.h"
#include "test_util.h"

using namespace skiff;
using namespace skiff::storage;
using namespace skiff::storage::test;

namespace {

std::shared_ptr<const LogConfig> small_segments() {
  return config_with([](LogConfig& c) { c.segment_bytes = 4096; });
}

[[noreturn]] void child_main(const std::filesystem::path& dir, uint32_t seed) {
  try {
    auto log = open_log(dir, small_segments());
    std::mt19937 rng(seed);
    std::map<int64_t, int32_t> seq;
    for (;;) {
      // A round's own producers (sequences restart); the last round's open
      // transactions stay open, holding the LSO, as a crashed client's would.
      const int64_t pid = 1 + 4 * static_cast<int64_t>(seed) + static_cast<int64_t>(rng() % 4);
      if (rng() % 3 == 0) {
        if (!log->append_marker(pid, 0, rng() % 2, 0, 1, 0, wall_clock_ms()).has_value()) _exit(3);
        continue;
      }
      BatchBuilder b;
      b.producer(pid, 0, seq[pid]).transactional(true).add("k", "v", wall_clock_ms());
      auto bytes = b.build();
      if (!log->append(bytes).has_value()) _exit(4);
      ++seq[pid];
    }
  } catch (...) {
    _exit(2);
  }
}

struct Replayed {
  int64_t lso;
  std::vector<AbortedTxn> aborted;
};

// Kafka's rules replayed over the batches the recovered log holds.
Replayed replay(const Log& log) {
  std::map<int64_t, int64_t> open;  // pid -> first offset
  Replayed e{0, {}};
  for (auto& bytes : read_all_batches(log, 0)) {
    RecordBatchView v(bytes);
    if (!v.is_control()) {
      if (v.is_transactional() && !open.count(v.producer_id())) open[v.producer_id()] = v.base_offset();
      continue;
    }
    auto m = parse_marker(v);
    REQUIRE(m);
    auto it = open.find(v.producer_id());
    if (it == open.end()) continue;
    const int64_t first = it->second;
    open.erase(it);
    int64_t lso = v.base_offset() + 1;
    for (const auto& [p, f] : open) lso = std::min(lso, f);
    if (!m->commit) e.aborted.push_back({v.producer_id(), first, v.base_offset(), lso});
  }
  e.lso = log.log_end_offset().value;
  for (const auto& [p, f] : open) e.lso = std::min(e.lso, f);
  return e;
}

}  // namespace

TEST_CASE("crash test: SIGKILL mid-transactions, LSO and aborted list recovered", "[log][crash][txn]") {
  TempDir d;
  std::mt19937 rng(11);
  for (int round = 0; round < 8; ++round) {
    pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) child_main(d.path(), static_cast<uint32_t>(round));
    std::this_thread::sleep_for(std::chrono::milliseconds(30 + rng() % 120));
    ::kill(child, SIGKILL);
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    INFO("child exit " << (WIFEXITED(status) ? WEXITSTATUS(status) : -1));
    REQUIRE(WIFSIGNALED(status));
    auto log = open_log(d.path(), small_segments(), /*clean=*/false, 0);
    INFO("round " << round << " log end " << log->log_end_offset().value);
    REQUIRE(log->log_end_offset().value > 0);
    const Replayed e = replay(*log);
    CHECK(log->last_stable_offset().value == e.lso);
    CHECK(log->collect_aborted_txns(Offset(0), Offset(log->log_end_offset().value + 1)) == e.aborted);
    auto r = log->read(Offset(0), 1 << 24, log->last_stable_offset());
    auto bytes = r->slice.read_all();
    BatchIterator it(bytes);
    RecordBatchView v;
    while (it.next(v)) CHECK(v.base_offset() < e.lso);
  }
}
