// CoalesceHold: how long a Processor holds after a turn of its loop before it
// looks at its sockets again (run_loop, skiff.network.coalesce.us).
//
// The hold lets requests from several connections gather, so that one
// wake-up serves a batch of them. It also delays every request by up to the
// hold, and a client with a bounded number of requests in flight (five per
// connection for most) then cannot send faster than its window per round
// trip: eight connections at a 450 µs hold top out near 60,000 requests/s
// whatever the broker's CPU. So the hold is no longer than it takes `batch`
// requests to arrive at the rate the last turns saw (requests read per
// microsecond between turns, smoothed over about four turns), and never
// longer than the configured tick. At 10,000 requests/s that is the whole
// tick; at 60,000/s about a fifth of it.
//
// Threads: the Processor's thread only (plain state, no locks).
#pragma once

#include <algorithm>
#include <chrono>

namespace skiff::network {

class CoalesceHold {
 public:
  using Clock = std::chrono::steady_clock;

  CoalesceHold(std::chrono::microseconds tick, double batch) : tick_(tick), batch_(batch) {}

  // A turn that began at `woke` read `requests` requests. `hold`: the turn
  // qualifies for a hold (several connections read, and the loop was busy).
  // Returns the hold, zero for none.
  std::chrono::microseconds after_turn(Clock::time_point woke, int requests, bool hold) {
    if (last_turn_ != Clock::time_point{}) {
      const double gap_us = std::max(1.0, std::chrono::duration<double, std::micro>(woke - last_turn_).count());
      rate_per_us_ += (requests / gap_us - rate_per_us_) / 4;
    }
    last_turn_ = woke;
    if (!hold) return std::chrono::microseconds(0);
    if (rate_per_us_ <= batch_ / static_cast<double>(tick_.count())) return tick_;
    return std::chrono::microseconds(static_cast<int64_t>(batch_ / rate_per_us_));
  }

 private:
  const std::chrono::microseconds tick_;
  const double batch_;
  Clock::time_point last_turn_{};
  double rate_per_us_ = 0;  // requests read per µs between turns, smoothed
};

}  // namespace skiff::network
