// What the produce load drivers (skiff_rdkafka_bench, skiff_produce_load)
// share, so that bench/request_cost.py drives and reads both the same
// way: their common flags (LoadOptions), the clock they time requests by, and
// the one JSON line a run reports. Header-only: the librdkafka driver links
// no Skiff library. Thread: report from one thread.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

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

// The q-quantile of `sorted` (nanoseconds) in milliseconds; 0 when empty.
inline double percentile(const std::vector<int64_t>& sorted, double q) {
  if (sorted.empty()) return 0;
  size_t i = std::min(sorted.size() - 1, size_t(q * double(sorted.size())));
  return double(sorted[i]) / 1e6;
}

// Sorts `latencies` (nanoseconds) and prints a run's JSON line on stdout:
// records answered, `expected`, records/s over `seconds`, `requests` sent,
// p50/p99/p99.9/max in ms. `extra`: more ",\"k\":v" fields for the line, or "".
inline void print_latencies(const char* mode, std::vector<int64_t>& latencies, long expected, double seconds,
                            long requests, const std::string& extra = "") {
  std::sort(latencies.begin(), latencies.end());
  std::printf(
      "{\"mode\":\"%s\",\"records\":%zu,\"expected\":%ld,\"records_per_s\":%.1f,\"requests\":%ld,"
      "\"p50_ms\":%.3f,\"p99_ms\":%.3f,\"p999_ms\":%.3f,\"max_ms\":%.3f%s}\n",
      mode, latencies.size(), expected, double(latencies.size()) / seconds, requests, percentile(latencies, 0.50),
      percentile(latencies, 0.99), percentile(latencies, 0.999),
      latencies.empty() ? 0.0 : double(latencies.back()) / 1e6, extra.c_str());
  std::fflush(stdout);
}

}  // namespace skiff::bench
