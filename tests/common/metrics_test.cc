// The metrics registry and its Prometheus text exposition (common/metrics.h):
// the exact text of each kind, label escaping, cumulative histogram buckets,
// bounded cardinality, and counts that stay exact under concurrent writers.
#include "common/metrics.h"

#include <catch2/catch.hpp>
#include <thread>
#include <vector>

using namespace skiff::metrics;

TEST_CASE("metrics: a counter family's exposition", "[metrics]") {
  Registry r;
  auto& bytes = r.counter("kafka_server_brokertopicmetrics_bytesin_total", "Bytes in.\nPer topic.", {"topic"});
  bytes.with({"orders"}).add(100);
  bytes.with({"orders"}).add(23);
  bytes.with({"a\"b\\c\nd"}).add();
  CHECK(r.scrape() ==
        "# HELP kafka_server_brokertopicmetrics_bytesin_total Bytes in.\\nPer topic.\n"
        "# TYPE kafka_server_brokertopicmetrics_bytesin_total counter\n"
        "kafka_server_brokertopicmetrics_bytesin_total{topic=\"a\\\"b\\\\c\\nd\"} 1\n"
        "kafka_server_brokertopicmetrics_bytesin_total{topic=\"orders\"} 123\n");
}

TEST_CASE("metrics: a histogram's buckets are cumulative, with sum and count", "[metrics]") {
  Registry r;
  auto& h = r.histogram("latency_seconds", "Latency.", {"request"}, {0.001, 0.01, 0.1});
  auto& produce = h.with({"Produce"});
  for (double v : {0.0005, 0.001, 0.005, 0.5}) produce.observe(v);
  CHECK(r.scrape() ==
        "# HELP latency_seconds Latency.\n"
        "# TYPE latency_seconds histogram\n"
        "latency_seconds_bucket{request=\"Produce\",le=\"0.001\"} 2\n"
        "latency_seconds_bucket{request=\"Produce\",le=\"0.01\"} 3\n"
        "latency_seconds_bucket{request=\"Produce\",le=\"0.1\"} 3\n"
        "latency_seconds_bucket{request=\"Produce\",le=\"+Inf\"} 4\n"
        "latency_seconds_sum{request=\"Produce\"} 0.5065\n"
        "latency_seconds_count{request=\"Produce\"} 4\n");
}

TEST_CASE("metrics: collectors add values read at scrape time", "[metrics]") {
  Registry r;
  int calls = 0;
  r.add_collector([&](Exposition& out) {
    ++calls;
    out.family("process_open_fds", "gauge", "Open descriptors.");
    out.sample("process_open_fds", {}, {}, 12);
  });
  CHECK(r.scrape() ==
        "# HELP process_open_fds Open descriptors.\n# TYPE process_open_fds gauge\nprocess_open_fds 12\n");
  r.scrape();
  CHECK(calls == 2);
}

TEST_CASE("metrics: series beyond the bound share one _other series", "[metrics]") {
  Registry r;
  auto& f = r.counter("c_total", "C.", {"topic", "partition"}, 2);
  f.with({"a", "0"}).add();
  f.with({"b", "0"}).add();
  f.with({"c", "0"}).add(5);
  f.with({"d", "1"}).add(5);
  const auto text = r.scrape();
  CHECK_THAT(text, Catch::Contains("c_total{topic=\"_other\",partition=\"_other\"} 10\n"));
  CHECK_THAT(text, !Catch::Contains("topic=\"c\""));
}

TEST_CASE("metrics: concurrent writers lose no increment", "[metrics]") {
  Registry r;
  auto& c = r.counter("n_total", "N.", {}).with({});
  auto& h = r.histogram("h", "H.", {}, {1.0}).with({});
  std::vector<std::thread> threads;
  threads.reserve(4);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 10000; ++i) {
        c.add();
        h.observe(0.5);
      }
    });
  for (auto& t : threads) t.join();
  CHECK(c.value() == 40000);
  CHECK(h.snapshot().cumulative.back() == 40000);
  CHECK(h.snapshot().sum == 20000);
}
