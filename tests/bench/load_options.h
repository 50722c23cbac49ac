// LoadOptions: the flags the produce load drivers share (skiff_rdkafka_bench,
// skiff_produce_load), so that scripts/bench_request_cost.py drives both the
// same way, and the clock both time requests by. Header-only: the librdkafka
// driver links no Skiff library.
#pragma once

#include <cstdint>
#include <ctime>
#include <string>

namespace skiff::bench {

struct LoadOptions {
  std::string bootstrap = "127.0.0.1:9092";  // --bootstrap HOST:PORT
  std::string topic = "bench";               // --topic
  double rate = 10000;                       // --rate: requests (records) per second, in all
  double seconds = 10;                       // --seconds
  int producers = 1;                         // --producers: connections
  int size = 100;                            // --size: record value bytes

  // Takes `--key value` if it is one of the flags above (std::sto* throw on a
  // malformed number); false if it is not.
  bool take(const std::string& key, const std::string& value) {
    if (key == "--bootstrap")
      bootstrap = value;
    else if (key == "--topic")
      topic = value;
    else if (key == "--rate")
      rate = std::stod(value);
    else if (key == "--seconds")
      seconds = std::stod(value);
    else if (key == "--producers")
      producers = std::stoi(value);
    else if (key == "--size")
      size = std::stoi(value);
    else
      return false;
    return true;
  }
};

inline int64_t mono_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace skiff::bench
