// A librdkafka load driver for scripts/bench_vs_kafka.py: the same client,
// with the same settings, against Skiff and against Apache Kafka. Each mode
// prints one JSON line on stdout; diagnostics go to stderr.
//
//   rdkafka_bench produce  --bootstrap H:P --topic T --records N --size S --acks A [--set k=v]...
//   rdkafka_bench consume  --bootstrap H:P --topic T --records N [--timeout-s S]
//   rdkafka_bench e2e      --bootstrap H:P --topic T --rate R --seconds S [--size S]
//   rdkafka_bench version
//
// produce: N records of S bytes as fast as the producer takes them; records/s
//   over the time from the first send to the last delivery report.
// consume: reads partition 0.. of T from the beginning (manual assignment, no
//   group protocol) until N records arrived; records/s from the first record
//   to the Nth, the start-up before the first record reported apart.
// e2e: one producer at R records/s (linger.ms=0) and one consumer in this
//   process; each record carries its send time (CLOCK_MONOTONIC), latency =
//   receive time - send time, reported as p50/p99/p99.9/max in ms.
//
// (Time to the first acknowledged produce is first_produce.cc: librdkafka's
// reconnect timer ticks once a second.)
#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

struct Options {
  std::string mode;
  std::string bootstrap = "127.0.0.1:9092";
  std::string topic = "bench";
  long records = 100000;
  int size = 100;
  std::string acks = "1";
  double rate = 10000;
  double seconds = 10;
  double timeout_s = 120;
  std::vector<std::pair<std::string, std::string>> extra;
};

[[noreturn]] void die(const std::string& msg) {
  std::fprintf(stderr, "rdkafka_bench: %s\n", msg.c_str());
  std::exit(1);
}

Options parse(int argc, char** argv) {
  if (argc < 2) die("usage: rdkafka_bench produce|consume|e2e|version --bootstrap H:P --topic T ...");
  Options o;
  o.mode = argv[1];
  for (int i = 2; i < argc; i += 2) {
    std::string key = argv[i];
    if (i + 1 >= argc) die("missing value for " + key);
    std::string value = argv[i + 1];
    if (key == "--bootstrap")
      o.bootstrap = value;
    else if (key == "--topic")
      o.topic = value;
    else if (key == "--records")
      o.records = std::stol(value);
    else if (key == "--size")
      o.size = std::stoi(value);
    else if (key == "--acks")
      o.acks = value;
    else if (key == "--rate")
      o.rate = std::stod(value);
    else if (key == "--seconds")
      o.seconds = std::stod(value);
    else if (key == "--timeout-s")
      o.timeout_s = std::stod(value);
    else if (key == "--set") {
      auto eq = value.find('=');
      if (eq == std::string::npos) die("--set wants key=value, got " + value);
      o.extra.emplace_back(value.substr(0, eq), value.substr(eq + 1));
    } else
      die("unknown option " + key);
  }
  return o;
}

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

int64_t mono_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

class Conf {
 public:
  Conf() : conf_(rd_kafka_conf_new()) {}
  Conf& set(const std::string& k, const std::string& v) {
    char err[512];
    if (rd_kafka_conf_set(conf_, k.c_str(), v.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK)
      die("config " + k + "=" + v + ": " + err);
    return *this;
  }
  rd_kafka_conf_t* release() { return std::exchange(conf_, nullptr); }
  rd_kafka_conf_t* get() { return conf_; }

 private:
  rd_kafka_conf_t* conf_;
};

rd_kafka_t* make_client(rd_kafka_type_t type, Conf& conf) {
  char err[512];
  rd_kafka_t* rk = rd_kafka_new(type, conf.release(), err, sizeof err);
  if (!rk) die(std::string("rd_kafka_new: ") + err);
  return rk;
}

Conf base_conf(const Options& o) {
  Conf c;
  c.set("bootstrap.servers", o.bootstrap).set("log_level", "3");
  for (const auto& [k, v] : o.extra) c.set(k, v);
  return c;
}

// Delivery reports count into this (the producer polls on the caller's thread).
struct DeliveryStats {
  long delivered = 0;
  long failed = 0;
  rd_kafka_resp_err_t first_error = RD_KAFKA_RESP_ERR_NO_ERROR;
};

void on_delivery(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
  auto* stats = static_cast<DeliveryStats*>(opaque);
  if (m->err) {
    if (stats->failed++ == 0) stats->first_error = m->err;
    return;
  }
  ++stats->delivered;
}

void produce_one(rd_kafka_t* rk, rd_kafka_topic_t* rkt, const void* data, size_t len) {
  for (;;) {
    if (rd_kafka_produce(rkt, RD_KAFKA_PARTITION_UA, RD_KAFKA_MSG_F_COPY, const_cast<void*>(data), len, nullptr, 0,
                         nullptr) == 0)
      return;
    if (rd_kafka_last_error() != RD_KAFKA_RESP_ERR__QUEUE_FULL)
      die(std::string("produce: ") + rd_kafka_err2str(rd_kafka_last_error()));
    rd_kafka_poll(rk, 1);  // queue full: serve delivery reports, then retry
  }
}

int run_produce(const Options& o) {
  DeliveryStats stats;
  Conf conf = base_conf(o);
  conf.set("acks", o.acks);
  rd_kafka_conf_set_dr_msg_cb(conf.get(), on_delivery);
  rd_kafka_conf_set_opaque(conf.get(), &stats);
  rd_kafka_t* rk = make_client(RD_KAFKA_PRODUCER, conf);
  rd_kafka_topic_t* rkt = rd_kafka_topic_new(rk, o.topic.c_str(), nullptr);
  std::string payload(size_t(o.size), 'x');
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = char('a' + i % 26);

  double start = now_s();
  for (long i = 0; i < o.records; ++i) {
    produce_one(rk, rkt, payload.data(), payload.size());
    if ((i & 1023) == 0) rd_kafka_poll(rk, 0);
  }
  double deadline = start + o.timeout_s;
  while (stats.delivered + stats.failed < o.records && now_s() < deadline) rd_kafka_poll(rk, 50);
  double elapsed = now_s() - start;
  if (stats.failed)
    std::fprintf(stderr, "rdkafka_bench: %ld failed, first: %s\n", stats.failed, rd_kafka_err2str(stats.first_error));
  std::printf(
      "{\"mode\":\"produce\",\"records\":%ld,\"failed\":%ld,\"seconds\":%.4f,\"records_per_s\":%.1f,"
      "\"mb_per_s\":%.2f}\n",
      stats.delivered, stats.failed, elapsed, stats.delivered / elapsed,
      stats.delivered * double(o.size) / elapsed / (1024 * 1024));
  std::fflush(stdout);
  rd_kafka_topic_destroy(rkt);
  rd_kafka_flush(rk, 1000);
  rd_kafka_destroy(rk);
  return stats.delivered == o.records ? 0 : 1;
}

// Manual assignment of every partition of the topic from its first offset.
rd_kafka_t* assigned_consumer(const Options& o, Conf conf) {
  conf.set("group.id", "rdkafka-bench").set("enable.auto.commit", "false").set("auto.offset.reset", "earliest");
  rd_kafka_t* rk = make_client(RD_KAFKA_CONSUMER, conf);
  rd_kafka_poll_set_consumer(rk);
  const rd_kafka_metadata_t* md = nullptr;
  rd_kafka_topic_t* rkt = rd_kafka_topic_new(rk, o.topic.c_str(), nullptr);
  double deadline = now_s() + o.timeout_s;
  int partitions = 0;
  while (now_s() < deadline) {
    if (rd_kafka_metadata(rk, 0, rkt, &md, 5000) == RD_KAFKA_RESP_ERR_NO_ERROR) {
      if (md->topic_cnt == 1 && md->topics[0].err == RD_KAFKA_RESP_ERR_NO_ERROR)
        partitions = md->topics[0].partition_cnt;
      rd_kafka_metadata_destroy(md);
      if (partitions > 0) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  rd_kafka_topic_destroy(rkt);
  if (partitions == 0) die("no partitions for topic " + o.topic);
  rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(partitions);
  for (int p = 0; p < partitions; ++p)
    rd_kafka_topic_partition_list_add(list, o.topic.c_str(), p)->offset = RD_KAFKA_OFFSET_BEGINNING;
  if (rd_kafka_assign(rk, list) != RD_KAFKA_RESP_ERR_NO_ERROR) die("assign failed");
  rd_kafka_topic_partition_list_destroy(list);
  return rk;
}

int run_consume(const Options& o) {
  double start = now_s();
  // A local queue big enough for the whole run: librdkafka 2.0 stops fetching
  // when it holds queued.min.messages and looks again only on a 1 s timer, so
  // a broker faster than the application loop would be measured by that timer.
  Conf conf = base_conf(o);
  conf.set("queued.min.messages", "10000000").set("queued.max.messages.kbytes", "2097151");
  rd_kafka_t* rk = assigned_consumer(o, std::move(conf));
  long received = 0;
  long bytes = 0;
  double first = 0;
  double deadline = start + o.timeout_s;
  while (received < o.records && now_s() < deadline) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(rk, 100);
    if (!m) continue;
    if (!m->err) {
      if (received++ == 0) first = now_s();
      bytes += long(m->len);
    } else if (m->err != RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      std::fprintf(stderr, "rdkafka_bench: consume error: %s\n", rd_kafka_message_errstr(m));
    }
    rd_kafka_message_destroy(m);
  }
  // The rate is over the fetching (first record to last), as
  // kafka-consumer-perf-test's fetch.nMsg.sec: the client's start-up (its
  // connections, metadata, offset lookup) is reported apart.
  const double end = now_s();
  const double elapsed = end - first;
  std::printf(
      "{\"mode\":\"consume\",\"records\":%ld,\"startup_s\":%.4f,\"seconds\":%.4f,\"records_per_s\":%.1f,"
      "\"mb_per_s\":%.2f}\n",
      received, first - start, elapsed, received / elapsed, bytes / elapsed / (1024 * 1024));
  std::fflush(stdout);
  rd_kafka_consumer_close(rk);
  rd_kafka_destroy(rk);
  return received == o.records ? 0 : 1;
}

double percentile(const std::vector<int64_t>& sorted, double q) {
  if (sorted.empty()) return 0;
  size_t i = std::min(sorted.size() - 1, size_t(q * double(sorted.size())));
  return double(sorted[i]) / 1e6;
}

int run_e2e(const Options& o) {
  DeliveryStats stats;
  Conf pconf = base_conf(o);
  pconf.set("acks", o.acks).set("linger.ms", "0");
  rd_kafka_conf_set_dr_msg_cb(pconf.get(), on_delivery);
  rd_kafka_conf_set_opaque(pconf.get(), &stats);
  rd_kafka_t* producer = make_client(RD_KAFKA_PRODUCER, pconf);
  rd_kafka_topic_t* rkt = rd_kafka_topic_new(producer, o.topic.c_str(), nullptr);

  // A zero marker creates the topic; the measurement starts once the consumer
  // has read it, so neither topic creation nor the consumer's start-up is
  // counted as latency. Records before the marker (earlier runs) are skipped.
  int64_t zero = 0;
  produce_one(producer, rkt, &zero, sizeof zero);
  rd_kafka_flush(producer, int(o.timeout_s * 1000));

  Conf cconf = base_conf(o);
  cconf.set("fetch.wait.max.ms", "500").set("fetch.min.bytes", "1");
  rd_kafka_t* consumer = assigned_consumer(o, std::move(cconf));
  const double warmup_deadline = now_s() + o.timeout_s;
  bool marker_seen = false;
  while (!marker_seen && now_s() < warmup_deadline) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(consumer, 100);
    if (!m) continue;
    if (!m->err && m->len == sizeof zero && std::memcmp(m->payload, &zero, sizeof zero) == 0) marker_seen = true;
    rd_kafka_message_destroy(m);
  }
  if (!marker_seen) die("e2e: the marker record never arrived");
  const long total = long(o.rate * o.seconds);
  std::vector<int64_t> latencies;
  latencies.reserve(size_t(total));

  std::thread send([&] {
    std::string payload(size_t(std::max(o.size, 8)), 'x');
    const int64_t start = mono_ns();
    const double interval_ns = 1e9 / o.rate;
    for (long i = 0; i < total; ++i) {
      int64_t due = start + int64_t(double(i) * interval_ns);
      // Sleep (no spinning: the client must not take the broker's core).
      int64_t now = mono_ns();
      if (due > now) std::this_thread::sleep_for(std::chrono::nanoseconds(due - now));
      now = mono_ns();
      std::memcpy(payload.data(), &now, sizeof now);
      produce_one(producer, rkt, payload.data(), payload.size());
      rd_kafka_poll(producer, 0);
    }
    rd_kafka_flush(producer, 10000);
  });

  double deadline = now_s() + o.seconds + o.timeout_s;
  while (long(latencies.size()) < total && now_s() < deadline) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(consumer, 100);
    if (!m) continue;
    if (!m->err && m->len >= sizeof(int64_t)) {
      int64_t sent;
      std::memcpy(&sent, m->payload, sizeof sent);
      latencies.push_back(mono_ns() - sent);
    }
    rd_kafka_message_destroy(m);
  }
  send.join();
  std::sort(latencies.begin(), latencies.end());
  std::printf(
      "{\"mode\":\"e2e\",\"records\":%zu,\"expected\":%ld,\"p50_ms\":%.3f,\"p99_ms\":%.3f,\"p999_ms\":%.3f,"
      "\"max_ms\":%.3f}\n",
      latencies.size(), total, percentile(latencies, 0.50), percentile(latencies, 0.99), percentile(latencies, 0.999),
      latencies.empty() ? 0.0 : double(latencies.back()) / 1e6);
  std::fflush(stdout);
  rd_kafka_topic_destroy(rkt);
  rd_kafka_destroy(producer);
  rd_kafka_consumer_close(consumer);
  rd_kafka_destroy(consumer);
  return long(latencies.size()) == total ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "version") {
    std::printf("%s\n", rd_kafka_version_str());
    return 0;
  }
  Options o = parse(argc, argv);
  if (o.mode == "produce") return run_produce(o);
  if (o.mode == "consume") return run_consume(o);
  if (o.mode == "e2e") return run_e2e(o);
  die("unknown mode " + o.mode);
}
