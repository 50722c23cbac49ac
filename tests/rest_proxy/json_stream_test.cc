// JsonObjectStream (apps/rest_proxy/json_stream.h): whole objects out of a
// stream fed in arbitrary pieces, braces inside strings and escapes not
// counted, garbage between objects and an over-large object reported.
#include "apps/rest_proxy/json_stream.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

using namespace skiff::restproxy;

namespace {

std::vector<std::string> all_objects(JsonObjectStream& s) {
  std::vector<std::string> out;
  std::string o;
  while (s.next(o) == JsonObjectStream::Next::kObject) out.push_back(o);
  return out;
}

}  // namespace

TEST_CASE("JsonObjectStream: objects fed byte by byte come out whole and in order", "[rest_proxy]") {
  const std::string text = R"( {"a":1}
{"b":"x}{\"y"} 	{"c":{"d":[1,{"e":"]"}]}}
)";
  JsonObjectStream s(1 << 20);
  std::vector<std::string> got;
  for (char c : text) {
    s.feed(std::string(1, c));
    for (auto& o : all_objects(s)) got.push_back(o);
  }
  REQUIRE(got.size() == 3);
  CHECK(got[0] == R"({"a":1})");
  CHECK(got[1] == R"({"b":"x}{\"y"})");
  CHECK(got[2] == R"({"c":{"d":[1,{"e":"]"}]}})");
  CHECK_FALSE(s.pending());
}

TEST_CASE("JsonObjectStream: an unfinished object stays pending, garbage and size are reported", "[rest_proxy]") {
  JsonObjectStream s(16);
  std::string o;
  s.feed(R"({"k":)");
  CHECK(s.next(o) == JsonObjectStream::Next::kMore);
  CHECK(s.pending());
  s.feed(R"("v"} x)");
  CHECK(s.next(o) == JsonObjectStream::Next::kObject);
  CHECK(o == R"({"k":"v"})");
  CHECK(s.next(o) == JsonObjectStream::Next::kGarbage);

  JsonObjectStream big(16);
  big.feed(R"({"k":"0123456789abcdef)");
  CHECK(big.next(o) == JsonObjectStream::Next::kTooLarge);

  JsonObjectStream array(1024);
  array.feed("[1,2]");
  CHECK(array.next(o) == JsonObjectStream::Next::kGarbage);
}
