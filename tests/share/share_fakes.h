// Fakes for share/ tests: a clock with timers that run when advanced, a
// persister whose writes complete inline or on demand, a config port.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "share/share_partition.h"
#include "share/state_persister.h"

namespace skiff::share::testing {

struct FakeTime {
  int64_t now = 1'000'000;
  std::multimap<int64_t, std::function<void()>> timers;
  void schedule(int64_t delay, std::function<void()> fn) { timers.emplace(now + delay, std::move(fn)); }
  void advance(int64_t ms) {
    now += ms;
    while (!timers.empty() && timers.begin()->first <= now) {
      auto fn = std::move(timers.begin()->second);
      timers.erase(timers.begin());
      fn();
    }
  }
};

struct FakeConfig : ShareGroupConfigPort {
  ShareGroupSettings s;
  ShareGroupSettings settings(const std::string&) const override { return s; }
};

// Writes: recorded; completed inline with `next_error` when auto_complete,
// else held until complete_next().
struct FakeWrites {
  bool auto_complete = true;
  ErrorCode next_error = ErrorCode::kNone;
  std::vector<PersistedState> written;
  std::deque<std::function<void(ErrorCode, std::string)>> pending;
  void write(const PersistedState& s, std::function<void(ErrorCode, std::string)> done) {
    written.push_back(s);
    if (auto_complete) {
      done(next_error, next_error == ErrorCode::kNone ? "" : "write failed");
    } else {
      pending.push_back(std::move(done));
    }
  }
  void complete_next(ErrorCode e = ErrorCode::kNone) {
    auto done = std::move(pending.front());
    pending.pop_front();
    done(e, e == ErrorCode::kNone ? "" : "write failed");
  }
};

// A persister keyed by group/topic/partition; reads and writes complete
// inline unless hold_reads is set.
struct FakePersister : StatePersister {
  std::map<std::string, PersistedState> states;
  std::vector<PersistedState> written;
  ErrorCode write_error = ErrorCode::kNone;
  ErrorCode read_error = ErrorCode::kNone;
  int reads = 0;
  bool hold_reads = false;
  std::deque<std::function<void()>> held;
  static std::string key(const PartitionRef& r) {
    return r.group_id + "/" + r.topic_id.to_string() + "/" + std::to_string(r.partition);
  }
  void read(const PartitionRef& r, int32_t, std::function<void(ErrorCode, std::string, PersistedState)> done) override {
    ++reads;
    PersistedState s = states.count(key(r)) ? states[key(r)] : PersistedState{};
    auto run = [done = std::move(done), s, e = read_error] { done(e, e == ErrorCode::kNone ? "" : "read failed", s); };
    if (hold_reads) {
      held.push_back(std::move(run));
    } else {
      run();
    }
  }
  void write(const PartitionRef&, const PersistedState& update,
             std::function<void(ErrorCode, std::string)> done) override {
    written.push_back(update);
    done(write_error, write_error == ErrorCode::kNone ? "" : "write failed");
  }
};

}  // namespace skiff::share::testing
