#include "common/expected.h"

#include <catch2/catch.hpp>
#include <memory>
#include <string>

using skiff::Expected;
using skiff::unexpected;

namespace {

Expected<int, std::string> parse_digit(char c) {
  if (c < '0' || c > '9') return unexpected(std::string("not a digit: ") + c);
  return c - '0';
}

Expected<void, int> check_even(int n) {
  if (n % 2 != 0) return unexpected(n);
  return {};
}

}  // namespace

TEST_CASE("Expected holds a value or an error", "[common][expected]") {
  auto ok = parse_digit('7');
  REQUIRE(ok);
  CHECK(ok.has_value());
  CHECK(*ok == 7);
  CHECK(ok.value_or(-1) == 7);

  auto bad = parse_digit('x');
  REQUIRE_FALSE(bad);
  CHECK(bad.error() == "not a digit: x");
  CHECK(bad.value_or(-1) == -1);
}

TEST_CASE("Expected<void, E> is success or an error", "[common][expected]") {
  CHECK(check_even(4));
  auto odd = check_even(3);
  REQUIRE_FALSE(odd);
  CHECK(odd.error() == 3);
}

TEST_CASE("Expected moves a move-only value out", "[common][expected]") {
  Expected<std::unique_ptr<int>, std::string> r(std::make_unique<int>(5));
  REQUIRE(r);
  std::unique_ptr<int> p = std::move(r).value();
  CHECK(*p == 5);
  Expected<std::string, std::string> same_types = unexpected(std::string("e"));  // T == E stays unambiguous
  REQUIRE_FALSE(same_types);
  CHECK(same_types.error() == "e");
}
