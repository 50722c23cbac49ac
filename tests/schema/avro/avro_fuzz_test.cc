// Mutated schema texts (the oracle's, with bytes flipped, cut, repeated
// and tokens inserted) never crash the parser, the printer, normalize, the
// checker or the decoder: each either refuses with a message or gives a
// schema every operation works on. Deterministic (a fixed seed).
#include <catch2/catch.hpp>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "avro_test_util.h"
#include "schema/avro/avro_decode.h"

using namespace skiff::schema::avro_test;
using skiff::schema::AvroSchema;

namespace {

std::vector<std::string> vector_texts() {
  std::vector<std::string> out;
  std::ifstream in(SKIFF_AVRO_ORACLE_VECTORS);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("S ", 0) == 0) out.push_back(line.substr(line.find(' ', 2) + 1));
  return out;
}

std::string mutate(std::string s, std::mt19937& rng) {
  static const std::vector<std::string> kTokens = {
      "\"", "[", "]", "{", "}", ",", ":", "\"R\"", "null", "-1", "1e999", "\"\\u0000\"", "\xff", "/*", "\"record\""};
  const int edits = 1 + static_cast<int>(rng() % 3);
  for (int e = 0; e < edits && !s.empty(); ++e) {
    const size_t at = rng() % s.size();
    switch (rng() % 4) {
      case 0:
        s[at] = static_cast<char>(rng());
        break;
      case 1:
        s.erase(at, rng() % 8);
        break;
      case 2:
        s.insert(at, s.substr(rng() % s.size(), rng() % 40));
        break;
      default:
        s.insert(at, kTokens[rng() % kTokens.size()]);
    }
  }
  return s;
}

void exercise(const std::string& text, const std::string& original, std::mt19937& rng) {
  for (bool as_new : {true, false}) {
    auto r = parse(text, {}, as_new);
    if (!r) {
      CHECK_FALSE(r.error().message.empty());
      continue;
    }
    const auto& schema = **r;
    CHECK_FALSE(schema.canonical().empty());
    (void)schema.normalized();
    if (auto o = parse(original)) {
      (void)schema.incompatibilities(**o);
      (void)(*o)->incompatibilities(schema);
    }
    std::string bytes(rng() % 64, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    (void)skiff::schema::avro::avro_to_json(dynamic_cast<const AvroSchema&>(schema).root(), bytes);
  }
}

}  // namespace

TEST_CASE("avro fuzz: mutated schema texts never crash", "[avro]") {
  const auto texts = vector_texts();
  REQUIRE(texts.size() > 1000);
  std::mt19937 rng(52);
  for (size_t i = 0; i < texts.size(); i += 3)
    for (int m = 0; m < 4; ++m) exercise(mutate(texts[i], rng), texts[i], rng);
}
