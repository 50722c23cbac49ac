// QuotaRate: Kafka's Rate over sampled windows, and QuotaUtils.throttleTime.
#include "common/quota_rate.h"

#include <catch2/catch.hpp>

using skiff::QuotaRate;
using skiff::QuotaWindow;
using skiff::throttle_ms;

TEST_CASE("A young rate is measured over samples - 1 whole windows", "[quota]") {
  QuotaRate r(QuotaWindow{11, 1000});
  r.record(1000, 0);
  CHECK(r.window_ms(0) == 10000);
  CHECK(r.measure(0) == Approx(100.0));
  r.record(1000, 500);  // same sample
  CHECK(r.window_ms(500) == 10500);
  CHECK(r.measure(500) == Approx(2000.0 / 10.5));
}

TEST_CASE("An old rate is measured over the time its samples span", "[quota]") {
  QuotaRate r(QuotaWindow{11, 1000});
  for (int64_t t = 0; t <= 10500; t += 100) r.record(10, t);  // 100 per second
  // Samples now start at 0, 1000, ..., 10000: they span 10.5 s at t=10500.
  CHECK(r.window_ms(10500) == 10500);
  CHECK(r.measure(10500) == Approx(1060.0 / 10.5));
}

TEST_CASE("Samples older than the whole span count for nothing", "[quota]") {
  QuotaRate r(QuotaWindow{3, 1000});
  r.record(300, 0);
  CHECK(r.measure(0) == Approx(150.0));   // over 2 windows
  CHECK(r.measure(3000) == Approx(0.0));  // expired: reset at 3000
  r.record(100, 3000);
  CHECK(r.measure(3000) == Approx(50.0));
}

TEST_CASE("Rotation reuses the oldest sample", "[quota]") {
  QuotaRate r(QuotaWindow{2, 1000});
  r.record(100, 0);
  r.record(100, 1000);  // second sample
  r.record(100, 2000);  // rotates onto the first: the 100 at t=0 is gone
  CHECK(r.window_ms(2000) == 1000);
  CHECK(r.measure(2000) == Approx(200.0));
}

TEST_CASE("A negative record takes a value back", "[quota]") {
  QuotaRate r(QuotaWindow{11, 1000});
  r.record(500, 0);
  r.record(-500, 0);
  CHECK(r.measure(0) == Approx(0.0));
}

TEST_CASE("The throttle brings the rate back to the bound over the window", "[quota]") {
  // Kafka's QuotaUtils: X = (O - T) / T * W.
  CHECK(throttle_ms(100, 50, 10000) == 10000);
  CHECK(throttle_ms(55, 50, 10000) == 1000);
  CHECK(throttle_ms(50, 50, 10000) == 0);  // at the bound: not over it
  CHECK(throttle_ms(40, 50, 10000) == 0);
  CHECK(throttle_ms(50.0001, 50, 11000) == 0);  // rounds to the millisecond
}
