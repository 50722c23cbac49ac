// CoalesceHold: the hold after a turn follows the rate requests arrive at,
// up to the configured period.
#include "network/coalesce_hold.h"

#include <catch2/catch.hpp>

using namespace std::chrono_literals;
using skiff::network::CoalesceHold;

namespace {
// Turns `gap` apart, each reading `requests`; the hold after the last.
std::chrono::microseconds steady(CoalesceHold& h, std::chrono::microseconds gap, int requests, int turns) {
  auto t = CoalesceHold::Clock::time_point{} + 1s;
  std::chrono::microseconds hold{};
  for (int i = 0; i < turns; ++i, t += gap) hold = h.after_turn(t, requests, true);
  return hold;
}
}  // namespace

TEST_CASE("a turn that does not qualify is never held", "[network]") {
  CoalesceHold h(450us, 8);
  CHECK(h.after_turn(CoalesceHold::Clock::time_point{} + 1s, 5, false) == 0us);
}

TEST_CASE("at a modest rate the hold is the whole period", "[network]") {
  CoalesceHold h(450us, 8);
  // 10,000 requests/s: 5 per 500 µs, under 8 per period.
  CHECK(steady(h, 500us, 5, 40) == 450us);
  CoalesceHold fresh(450us, 8);
  CHECK(fresh.after_turn(CoalesceHold::Clock::time_point{} + 1s, 40, true) == 450us);  // first turn: no rate yet
}

TEST_CASE("a fast rate shortens the hold to about the time its batch takes to arrive", "[network]") {
  CoalesceHold h(450us, 8);
  // 80,000 requests/s (40 per 500 µs): 8 arrive in 100 µs.
  const auto hold = steady(h, 500us, 40, 40);
  CHECK(hold >= 95us);
  CHECK(hold <= 105us);
}

TEST_CASE("the rate is smoothed: one busy turn does not drop the hold", "[network]") {
  CoalesceHold h(450us, 8);
  auto t = CoalesceHold::Clock::time_point{} + 1s;
  for (int i = 0; i < 40; ++i, t += 500us) h.after_turn(t, 2, true);  // 4,000/s
  // One turn of 40 (a burst) moves the smoothed rate a quarter of the way.
  const auto hold = h.after_turn(t, 40, true);
  CHECK(hold > 150us);
  CHECK(hold < 450us);
}
