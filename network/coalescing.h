// How long a coalescing Processor waits after a turn before it looks at its
// sockets again (skiff.network.coalesce.us, Processor::run_loop). Pure
// arithmetic, no state; called on the Processor's thread.
//
// The hold gathers the requests of several connections into one wake-up of
// the loop and of a handler. It must not cap them: a client keeps at most a
// window of requests in flight (five for Java's and librdkafka's
// producers), so a loop that looks once per period P lets C connections send
// at most 5·C requests per P, whatever the machine could serve (eight
// connections: 80,000 requests/s at P = 500 µs). So the hold is the time each
// connection the turn read takes, at the rate that turn saw, to send
// kCoalescedRequestsPerConnection (four) more requests, and never more
// than P:
//
//   hold = min(P, since_last_look · 4 · connections / requests)
//
// Below the cap this is P (10,000 requests/s from two connections: 800 µs,
// so P). At the cap each look reads whole windows, five per connection, and
// each hold is 4/5 of the last look-to-look time, until the looks read less
// than windows: from then on the rate is the clients', not the hold's.
// A client with a window of four or fewer (one: a synchronous producer) is
// still held up to P, as before: latency traded for wake-ups.
#pragma once

#include <algorithm>
#include <chrono>

namespace skiff::network {

inline constexpr int kCoalescedRequestsPerConnection = 4;

// `since_last_look`: from the wake-up of the turn before to this turn's;
// `connections` and `requests`: what this turn read (the Processor counts a
// change of connection as one, so a connection read twice in a turn can
// count twice: the hold then errs longer, never past P).
inline std::chrono::nanoseconds coalescing_hold(std::chrono::nanoseconds period,
                                                std::chrono::nanoseconds since_last_look, int connections,
                                                int requests) {
  if (requests <= 0 || connections <= 0) return period;
  const auto per_batch = since_last_look * (int64_t{kCoalescedRequestsPerConnection} * connections) / requests;
  return std::clamp(per_batch, std::chrono::nanoseconds::zero(), period);
}

}  // namespace skiff::network
