// skiff_partitions_bench: drives a broker with many partitions (not a test;
// bench/partitions.py runs it).
//
//   skiff_partitions_bench HOST PORT create TOPICS PARTITIONS
//       creates topics p-0..p-(TOPICS-1), one CreateTopics request each, then
//       produces one batch to every partition (one Produce per topic).
//   skiff_partitions_bench HOST PORT produce TOPICS PARTITIONS N
//       N single-record acks=1 Produce requests, one at a time, each to a
//       random partition; prints latency percentiles.
// Prints one JSON line.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "log/batch_builder.h"
#include "tests/support/kafka_requests.h"

using namespace skiff;
using Clock = std::chrono::steady_clock;

namespace {

std::vector<int32_t> range(int n) {
  std::vector<int32_t> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<size_t>(i)] = i;
  return v;
}

int create(test::KafkaRequests& k, int topics, int parts) {
  auto t0 = Clock::now();
  int failed = 0;
  for (int t = 0; t < topics; ++t) {
    auto name = "p-" + std::to_string(t);
    if (k.create_topics({name}, parts)[name] != 0) ++failed;
  }
  auto t1 = Clock::now();
  auto batch = storage::make_test_batch(1, 100, std::time(nullptr) * 1000LL);
  for (int t = 0; t < topics; ++t) {
    for (auto& [p, e] : k.produce("p-" + std::to_string(t), range(parts), batch)) failed += e != 0;
  }
  auto t2 = Clock::now();
  std::printf("{\"mode\":\"create\",\"partitions\":%d,\"create_s\":%.2f,\"fill_s\":%.2f,\"failed\":%d}\n",
              topics * parts, std::chrono::duration<double>(t1 - t0).count(),
              std::chrono::duration<double>(t2 - t1).count(), failed);
  return failed == 0 ? 0 : 1;
}

int produce(test::KafkaRequests& k, int topics, int parts, int n) {
  std::mt19937 rng(42);
  std::vector<double> us;
  us.reserve(static_cast<size_t>(n));
  int failed = 0;
  for (int i = 0; i < n; ++i) {
    int t = static_cast<int>(rng() % static_cast<unsigned>(topics));
    int32_t p = static_cast<int32_t>(rng() % static_cast<unsigned>(parts));
    auto batch = storage::make_test_batch(1, 100, std::time(nullptr) * 1000LL, static_cast<uint64_t>(i));
    auto t0 = Clock::now();
    auto r = k.produce("p-" + std::to_string(t), {p}, batch);
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    if (r.size() != 1 || r.begin()->second != 0) ++failed;
  }
  std::sort(us.begin(), us.end());
  auto pct = [&](double q) {
    return us[std::min(us.size() - 1, static_cast<size_t>(q * static_cast<double>(us.size())))];
  };
  std::printf("{\"mode\":\"produce\",\"requests\":%d,\"p50_us\":%.0f,\"p99_us\":%.0f,\"max_us\":%.0f,\"failed\":%d}\n",
              n, pct(0.5), pct(0.99), us.back(), failed);
  return failed == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 6) {
    std::fprintf(stderr, "usage: %s HOST PORT create|produce TOPICS PARTITIONS [N]\n", argv[0]);
    return 2;
  }
  test::RawClient c(argv[1], static_cast<uint16_t>(std::atoi(argv[2])), 600000);
  if (!c.connected()) {
    std::fprintf(stderr, "cannot connect\n");
    return 1;
  }
  test::KafkaRequests k(c);
  const std::string mode = argv[3];
  const int topics = std::atoi(argv[4]), parts = std::atoi(argv[5]);
  try {
    if (mode == "create") return create(k, topics, parts);
    if (mode == "produce") return produce(k, topics, parts, argc > 6 ? std::atoi(argv[6]) : 10000);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 2;
}
