// Replays the committed fuzz corpus (tests/fuzz/corpus) through the fuzz
// target's property, so every build, sanitizers included, re-checks it
// without libFuzzer.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "tests/fuzz/request_frame_check.h"

namespace {

TEST_CASE("codec: fuzz corpus replays cleanly", "[codec][fuzz]") {
  size_t inputs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(SKIFF_FUZZ_CORPUS)) {
    std::ifstream in(entry.path(), std::ios::binary);
    const std::vector<uint8_t> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    INFO(entry.path().filename().string());
    CHECK(skiff::protocol::fuzz::check_request_frame(data).empty());
    ++inputs;
  }
  CHECK(inputs > 100);
}

}  // namespace
