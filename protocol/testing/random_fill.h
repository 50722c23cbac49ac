// Test-only: fills any generated message with random values that are valid
// for a given version (fields absent in it stay default, nulls only where
// the version allows them). Used by the round-trip tests and the fuzzer;
// compiled into skiff_protocol_testing, never into the broker.
#pragma once

#include <bit>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "protocol/any_message.h"
#include "protocol/records.h"
#include "protocol/types.h"

namespace skiff::protocol::testing {

// Random source plus storage that keeps records bytes alive (Records views
// never own their bytes). One per test thread.
class FillContext {
 public:
  explicit FillContext(uint64_t seed) : state_(seed) {}

  uint64_t next();  // splitmix64
  bool chance(int one_in) { return next() % static_cast<uint64_t>(one_in) == 0; }
  size_t count() { return next() % 3; }  // array lengths stay small

  void fill(bool& v) { v = next() & 1; }
  void fill(int8_t& v) { v = static_cast<int8_t>(next()); }
  void fill(int16_t& v) { v = static_cast<int16_t>(next()); }
  void fill(uint16_t& v) { v = static_cast<uint16_t>(next()); }
  void fill(int32_t& v) { v = static_cast<int32_t>(next()); }
  void fill(int64_t& v) { v = static_cast<int64_t>(next()); }
  // Mostly plain values; one in three is a value equality gets wrong
  // (a NaN with a payload, -0.0, an infinity) or any bit pattern.
  void fill(double& v) {
    static constexpr uint64_t kOdd[] = {0x7ff8000000000001, 0x8000000000000000, 0xfff0000000000000};
    const uint64_t pick = next() % 12;
    if (pick < 3)
      v = std::bit_cast<double>(kOdd[pick]);
    else if (pick == 3)
      v = std::bit_cast<double>(next());
    else
      v = static_cast<double>(next() % 1000000) / 8.0;
  }
  void fill(Uuid& v);
  void fill(std::string& v);
  void fill(std::vector<uint8_t>& v);
  Records records(bool nullable);
  // A few unknown tags above any tag a schema uses, in ascending order.
  void fill_unknown_tags(TaggedFields& tags);

 private:
  uint64_t state_;
  std::deque<std::vector<uint8_t>> storage_;
};

void random_fill(AnyMessage& message, FillContext& ctx, int16_t version);

// Same concrete message type and equal fields (unknown tags included).
bool messages_equal(const AnyMessage& a, const AnyMessage& b);

}  // namespace skiff::protocol::testing
