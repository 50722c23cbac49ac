// TxnHarness: TxnCoordinator over fakes — a clock the test moves, a state log
// and a marker writer that either complete at once or hold their completions
// until the test releases them (to observe CONCURRENT_TRANSACTIONS windows and
// failures), and a counting producer id source. Single-threaded, as the
// coordinator requires.
#pragma once

#include <catch2/catch.hpp>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "coordinator/txn/transaction_log.h"
#include "coordinator/txn/txn_coordinator.h"

namespace skiff::test {

using namespace skiff::txn;
using skiff::ErrorCode;

struct FakeClock : TxnClock {
  int64_t now = 1'000'000;
  int64_t now_ms() override { return now; }
};

struct FakeStateLog : TxnStateLog {
  struct Entry {
    std::vector<uint8_t> key;
    std::optional<std::vector<uint8_t>> value;
  };
  bool hold = false;  // keep completions until release()
  ErrorCode fail_next = ErrorCode::kNone;
  std::vector<Entry> durable;  // what a restart would replay
  std::deque<std::pair<Entry, std::function<void(ErrorCode)>>> held;

  void append(const std::string&, std::vector<uint8_t> key, std::optional<std::vector<uint8_t>> value,
              std::function<void(ErrorCode)> done) override {
    Entry e{std::move(key), std::move(value)};
    if (hold) {
      held.emplace_back(std::move(e), std::move(done));
      return;
    }
    complete(std::move(e), done);
  }
  // append_written() (Complete*): kept like a durable record unless the
  // test says a crash lost it.
  bool lose_written = false;
  std::vector<Entry> lost;
  void append_written(const std::string& id, std::vector<uint8_t> key, std::optional<std::vector<uint8_t>> value,
                      std::function<void(ErrorCode)> done) override {
    if (!lose_written) return append(id, std::move(key), std::move(value), std::move(done));
    lost.push_back({std::move(key), std::move(value)});
    done(ErrorCode::kNone);
  }
  void complete(Entry e, const std::function<void(ErrorCode)>& done) {
    const ErrorCode err = fail_next;
    fail_next = ErrorCode::kNone;
    if (err == ErrorCode::kNone) durable.push_back(std::move(e));
    done(err);
  }
  void release_one() {
    auto [e, done] = std::move(held.front());
    held.pop_front();
    complete(std::move(e), done);
  }
  std::vector<TxnLogRecord> records() const {
    std::vector<TxnLogRecord> out;
    for (const auto& e : durable) {
      std::optional<std::span<const uint8_t>> v;
      if (e.value) v = std::span<const uint8_t>(*e.value);
      out.push_back(decode_txn_log_record(e.key, v));
    }
    return out;
  }
};

struct FakeMarkers : TxnMarkerWriter {
  struct Call {
    int64_t producer_id;
    int16_t epoch;
    bool commit;
    std::set<TopicPartition> partitions;
  };
  bool hold = false;
  ErrorCode fail_next = ErrorCode::kNone;
  std::vector<Call> calls;
  std::deque<std::function<void(ErrorCode)>> held;

  void write_markers(int64_t pid, int16_t epoch, bool commit, const std::set<TopicPartition>& parts,
                     std::function<void(ErrorCode)> done) override {
    calls.push_back({pid, epoch, commit, parts});
    if (hold) {
      held.push_back(std::move(done));
      return;
    }
    const ErrorCode err = fail_next;
    fail_next = ErrorCode::kNone;
    done(err);
  }
  void release_one(ErrorCode e = ErrorCode::kNone) {
    auto done = std::move(held.front());
    held.pop_front();
    done(e);
  }
};

struct FakeIds : TxnProducerIdSource {
  int64_t next = 1000;
  ErrorCode fail = ErrorCode::kNone;
  Allocated allocate() override {
    if (fail != ErrorCode::kNone) return {fail, kNoProducerId};
    return {ErrorCode::kNone, next++};
  }
};

struct TxnHarness {
  FakeClock clock;
  FakeStateLog log;
  FakeIds ids;
  FakeMarkers markers;
  // Additions answer CONCURRENT_TRANSACTIONS at once unless a test sets busy_wait_ms.
  static TxnConfig immediate() {
    TxnConfig c;
    c.busy_wait_ms = 0;
    return c;
  }
  TxnConfig config = immediate();
  TxnCoordinator coord{config, clock, log, ids, markers};

  TxnHarness() = default;
  explicit TxnHarness(TxnConfig c) : config(c), coord{config, clock, log, ids, markers} {}

  // Wrappers returning the answer if it came at once (the fakes complete at
  // once unless told to hold); a held completion lands in a shared slot, so
  // releasing it later is safe.
  TxnResult init(const std::string& id, int32_t timeout_ms = 60000,
                 std::optional<ProducerIdAndEpoch> expected = std::nullopt) {
    auto out = std::make_shared<std::optional<TxnResult>>();
    coord.init_producer_id(id, timeout_ms, expected, [out](TxnResult r) { *out = r; });
    REQUIRE(out->has_value());
    return **out;
  }
  std::optional<ErrorCode> add(const std::string& id, const TxnResult& p, std::set<TopicPartition> parts,
                               int16_t client_tv = 0) {
    auto out = std::make_shared<std::optional<ErrorCode>>();
    coord.add_partitions(id, p.producer_id, p.epoch, parts, client_tv, [out](ErrorCode e) { *out = e; });
    return *out;
  }
  std::optional<TxnResult> end(const std::string& id, int64_t pid, int16_t epoch, bool commit, int16_t tv = 0) {
    auto out = std::make_shared<std::optional<TxnResult>>();
    coord.end_txn(id, pid, epoch, commit, tv, [out](TxnResult r) { *out = r; });
    return *out;
  }
  TxnState state(const std::string& id) const { return coord.find(id)->state(); }
  const TxnTransit& cur(const std::string& id) const { return coord.find(id)->current(); }
};

inline const std::set<TopicPartition> kTwo = {{"orders", 0}, {"orders", 1}};

}  // namespace skiff::test
