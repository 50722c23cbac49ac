// libFuzzer entry point: request frame bodies (request header + request
// body) as the network layer hands them to the API layer; see
// request_frame_check.h for the property. Run with scripts/fuzz.sh.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>

#include "tests/fuzz/request_frame_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string error = skiff::protocol::fuzz::check_request_frame(std::span<const uint8_t>(data, size));
  if (!error.empty()) {
    std::fprintf(stderr, "request frame check failed: %s\n", error.c_str());
    std::abort();
  }
  return 0;
}
