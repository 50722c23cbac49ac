// coalescing_hold (network/coalescing.h): how long a coalescing Processor
// waits before its next look at the sockets.
#include "network/coalescing.h"

#include <catch2/catch.hpp>

using namespace std::chrono_literals;
using skiff::network::coalescing_hold;

TEST_CASE("coalescing holds the whole period while connections send less than a window per period", "[network]") {
  // 10,000 requests/s from two connections: five per 500 µs look.
  CHECK(coalescing_hold(500us, 500us, 2, 5) == 500us);
  // One request per connection per look (synchronous clients): held as before.
  CHECK(coalescing_hold(500us, 500us, 8, 8) == 500us);
  CHECK(coalescing_hold(500us, 500us, 2, 0) == 500us);
}

TEST_CASE("coalescing holds no longer than four requests per connection take at the turn's rate", "[network]") {
  // Eight connections with full windows of five every 500 µs: 4/5 of it.
  CHECK(coalescing_hold(500us, 500us, 8, 40) == 400us);
  // Twice as fast: half that.
  CHECK(coalescing_hold(500us, 250us, 8, 40) == 200us);
  // Repeated, a capped loop's hold shrinks until the looks read less than
  // whole windows; from then on each look reads about four per connection.
  auto hold = std::chrono::nanoseconds(500us);
  for (int look = 0; look < 10; ++look) hold = coalescing_hold(500us, hold, 8, 40);
  CHECK(hold < 60us);
  CHECK(coalescing_hold(500us, 100us, 8, 32) == 100us);
}
