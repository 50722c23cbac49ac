// A librdkafka load driver for bench/vs_kafka.py: the same client,
// with the same settings, against Skiff and against Apache Kafka. Each mode
// prints one JSON line on stdout; diagnostics go to stderr.
//
//   rdkafka_bench produce  --bootstrap H:P --topic T --records N --size S --acks A [--set k=v]...
//   rdkafka_bench consume  --bootstrap H:P --topic T --records N [--offset O] [--timeout-s S]
//   rdkafka_bench e2e      --bootstrap H:P --topic T --rate R --seconds S [--size S]
//   rdkafka_bench rate     --bootstrap H:P --topic T --rate R --seconds S --producers P [--size S]
//   rdkafka_bench version
//   Any mode also takes --stats-file F: librdkafka's statistics every 200 ms,
//   appended one JSON per line (bench/rdkafka_stats.py summarises them).
//
// produce: N records of S bytes as fast as the producer takes them; records/s
//   over the time from the first send to the last delivery report.
// consume: reads partition 0.. of T from the beginning, or from offset O
//   (--offset; bench/tiered.py reads a local tail), with manual assignment and
//   no group protocol, until N records arrived; records/s from the first record
//   to the Nth, the start-up before the first record reported apart.
// e2e: one producer at R records/s (linger.ms=0) and one consumer in this
//   process that tails T (it starts at T's end, so a run on a topic earlier
//   runs filled does not read their records first); each record carries its
//   send time (CLOCK_MONOTONIC), latency = receive time - send time, reported
//   as p50/p99/p99.9/max in ms; and the produce round trip (delivery report -
//   send time) as produce_p50/p99_ms, the report seen at the sender's next
//   send (up to 1/R late).
// rate: P producers (P connections), R records/s in all, every record its own
//   produce request (linger.ms=0, batch.num.messages=1, acks=1, at most 5
//   requests in flight per connection, as Java's default); latency = delivery
//   report - send time. Records not yet sent when the run ends are not sent.
// e2e and rate also report "requests": what the clients sent (librdkafka's
//   statistics "tx"), so the caller can divide the broker's costs by it.
//
// (Time to the first acknowledged produce is first_produce.cc: librdkafka's
// reconnect timer ticks once a second.)
#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tests/bench/load_driver.h"

namespace {

using skiff::bench::mono_ns;
using skiff::bench::percentile;
using skiff::bench::print_latencies;

struct Options : skiff::bench::LoadOptions {
  std::string mode;
  long records = 100000;
  long offset = -1;  // --offset: consume from here (-1: the beginning)
  std::string acks = "1";
  double timeout_s = 120;
  std::string stats_file;  // --stats-file: librdkafka's statistics, one JSON per line
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
    if (o.take(key, value)) continue;
    if (key == "--records")
      o.records = std::stol(value);
    else if (key == "--offset")
      o.offset = std::stol(value);
    else if (key == "--acks")
      o.acks = value;
    else if (key == "--timeout-s")
      o.timeout_s = std::stod(value);
    else if (key == "--stats-file")
      o.stats_file = value;
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
  // Warnings too: a timed-out request or a dropped connection is what explains
  // a latency stall (bench/request_cost.py keeps the client's last log lines).
  c.set("bootstrap.servers", o.bootstrap).set("log_level", "4");
  for (const auto& [k, v] : o.extra) c.set(k, v);
  return c;
}

// What one client's callbacks collect (its opaque). Delivery reports and
// statistics are served by the client's poll, on the polling thread (a
// Poller's, and whichever thread flushes: `mu` guards what a delivery report
// writes); the request count is read from another thread, hence atomic.
struct ClientStats {
  std::mutex mu;
  long delivered = 0;
  long failed = 0;
  rd_kafka_resp_err_t first_error = RD_KAFKA_RESP_ERR_NO_ERROR;
  bool timed = false;              // records carry their send time (mono_ns)
  std::vector<int64_t> latencies;  // delivery report - send time, when timed
  std::atomic<long> requests{0};   // statistics' "tx": requests sent so far
};

void on_delivery(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
  auto* stats = static_cast<ClientStats*>(opaque);
  std::lock_guard lock(stats->mu);
  if (m->err) {
    if (stats->failed++ == 0) stats->first_error = m->err;
    return;
  }
  ++stats->delivered;
  if (stats->timed && m->len >= sizeof(int64_t)) {
    int64_t sent;
    std::memcpy(&sent, m->payload, sizeof sent);
    stats->latencies.push_back(mono_ns() - sent);
  }
}

// The value of a number-valued key at the top level of a JSON object.
long top_level_number(const char* json, size_t len, const char* key) {
  int depth = 0;
  bool in_string = false;
  const size_t key_len = std::strlen(key);
  for (size_t i = 0; i < len; ++i) {
    const char c = json[i];
    if (in_string) {
      if (c == '\\') ++i;
      if (c == '"') in_string = false;
      continue;
    }
    if (c == '{' || c == '[') ++depth;
    if (c == '}' || c == ']') --depth;
    if (c != '"') continue;
    if (depth == 1 && i + key_len + 3 < len && std::strncmp(json + i + 1, key, key_len) == 0 &&
        json[i + 1 + key_len] == '"' && json[i + 2 + key_len] == ':')
      return std::strtol(json + i + 3 + key_len, nullptr, 10);
    in_string = true;
  }
  return -1;
}

// --stats-file: every client's statistics (rtt, int_latency, outbuf_latency
// per broker: where a record's time went), appended one JSON per line
// (bench/rdkafka_stats.py reads them). Written from the clients' threads.
std::FILE* g_stats_out = nullptr;

int on_stats(rd_kafka_t*, char* json, size_t len, void* opaque) {
  if (g_stats_out) {
    flockfile(g_stats_out);
    fwrite_unlocked(json, 1, len, g_stats_out);
    fputc_unlocked('\n', g_stats_out);
    funlockfile(g_stats_out);
  }
  long tx = top_level_number(json, len, "tx");
  if (tx >= 0) static_cast<ClientStats*>(opaque)->requests.store(tx);
  return 0;  // librdkafka frees json
}

constexpr int kStatsIntervalMs = 200;

// `stats` collects this client's request count, and a producer's delivery
// reports (a consumer given a delivery callback logs a warning).
void collect(Conf& conf, ClientStats* stats, rd_kafka_type_t type = RD_KAFKA_PRODUCER) {
  conf.set("statistics.interval.ms", std::to_string(kStatsIntervalMs));
  rd_kafka_conf_set_stats_cb(conf.get(), on_stats);
  if (type == RD_KAFKA_PRODUCER) rd_kafka_conf_set_dr_msg_cb(conf.get(), on_delivery);
  rd_kafka_conf_set_opaque(conf.get(), stats);
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
  ClientStats stats;
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

// Partition p's high watermark, asked of the broker (not a cached value).
int64_t end_offset(rd_kafka_t* rk, const Options& o, int p) {
  int64_t low = 0, high = 0;
  rd_kafka_resp_err_t err =
      rd_kafka_query_watermark_offsets(rk, o.topic.c_str(), p, &low, &high, int(o.timeout_s * 1000));
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) die(std::string("watermarks: ") + rd_kafka_err2str(err));
  return high;
}

// Reads partition 0.. of o.topic by manual assignment (no group protocol):
// from the beginning, or with `at_end` from each partition's end as it is now
// (its high watermark), so that what earlier runs left is not read again.
rd_kafka_t* assigned_consumer(const Options& o, Conf& conf, bool at_end = false) {
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
    rd_kafka_topic_partition_list_add(list, o.topic.c_str(), p)->offset =
        at_end ? end_offset(rk, o, p) : (o.offset >= 0 ? o.offset : RD_KAFKA_OFFSET_BEGINNING);
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
  rd_kafka_t* rk = assigned_consumer(o, conf);
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

// Serves a producer's callbacks on its own thread while it lives, each as
// soon as it is due: a delivery report is timed when it arrives, not at the
// sender's next send (which at R records/s would add up to 1/R to it).
class Poller {
 public:
  explicit Poller(rd_kafka_t* rk)
      : thread_([this, rk] {
          while (!stop_.load()) rd_kafka_poll(rk, 20);
        }) {}
  Poller(const Poller&) = delete;
  Poller& operator=(const Poller&) = delete;
  ~Poller() {
    stop_.store(true);
    thread_.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// Sends `total` records at `rate`/s from the calling thread, each carrying its
// send time; sleeps between sends (no spinning: the client must not take the
// broker's core). Stops early once `stop_at` (mono_ns) has passed. With
// `poll`, the delivery reports are served after each send (so seen up to
// one send interval late); without, the caller runs a Poller.
void send_paced(rd_kafka_t* rk, rd_kafka_topic_t* rkt, const Options& o, double rate, long total, bool poll,
                int64_t stop_at = INT64_MAX) {
  std::string payload(size_t(std::max(o.size, 8)), 'x');
  const int64_t start = mono_ns();
  const double interval_ns = 1e9 / rate;
  for (long i = 0; i < total; ++i) {
    int64_t due = start + int64_t(double(i) * interval_ns);
    int64_t now = mono_ns();
    if (due > now) std::this_thread::sleep_for(std::chrono::nanoseconds(due - now));
    now = mono_ns();
    if (now > stop_at) return;
    std::memcpy(payload.data(), &now, sizeof now);
    produce_one(rk, rkt, payload.data(), payload.size());
    if (poll) rd_kafka_poll(rk, 0);
  }
}

// Serves `rk`'s callbacks for a little over one statistics interval, so the
// request count read next is at most that old.
void settle_stats(rd_kafka_t* rk, bool consumer) {
  const double until = now_s() + 1.5 * kStatsIntervalMs / 1000.0;
  while (now_s() < until) {
    if (!consumer) {
      rd_kafka_poll(rk, 20);
      continue;
    }
    if (rd_kafka_message_t* m = rd_kafka_consumer_poll(rk, 20)) rd_kafka_message_destroy(m);
  }
}

// ",\"k\":v" for each pair, v with three decimals.
std::string fmt_fields(std::initializer_list<std::pair<const char*, double>> fields) {
  std::string out;
  char buf[96];
  for (const auto& [k, v] : fields) {
    std::snprintf(buf, sizeof buf, ",\"%s\":%.3f", k, v);
    out += buf;
  }
  return out;
}

// A marker of this run (a negative number no send time can be) creates the
// topic; the measurement starts once the consumer has read it, so neither
// topic creation nor the consumer's start-up is counted as latency.
void wait_for_marker(rd_kafka_t* producer, rd_kafka_topic_t* rkt, rd_kafka_t* consumer, const Options& o) {
  const int64_t marker = -mono_ns();
  produce_one(producer, rkt, &marker, sizeof marker);
  rd_kafka_flush(producer, int(o.timeout_s * 1000));
  const double deadline = now_s() + o.timeout_s;
  while (now_s() < deadline) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(consumer, 100);
    if (!m) continue;
    bool seen = !m->err && m->len == sizeof marker && std::memcmp(m->payload, &marker, sizeof marker) == 0;
    rd_kafka_message_destroy(m);
    if (seen) return;
  }
  die("e2e: the marker record never arrived");
}

int run_e2e(const Options& o) {
  ClientStats pstats, cstats;
  Conf pconf = base_conf(o);
  pconf.set("acks", o.acks).set("linger.ms", "0");
  collect(pconf, &pstats);
  rd_kafka_t* producer = make_client(RD_KAFKA_PRODUCER, pconf);
  rd_kafka_topic_t* rkt = rd_kafka_topic_new(producer, o.topic.c_str(), nullptr);
  Conf cconf = base_conf(o);
  cconf.set("fetch.wait.max.ms", "500").set("fetch.min.bytes", "1");
  collect(cconf, &cstats, RD_KAFKA_CONSUMER);
  rd_kafka_t* consumer = assigned_consumer(o, cconf, true);  // tails: earlier runs' records are not read
  wait_for_marker(producer, rkt, consumer, o);
  pstats.timed = true;  // the produce round trip too (delivery report - send), from here on

  const long total = long(o.rate * o.seconds);
  const long requests0 = pstats.requests + cstats.requests;
  std::vector<int64_t> latencies;
  latencies.reserve(size_t(total));
  std::thread send([&] {
    // No Poller here: its wake-ups would add to the machine's load what the
    // e2e figures are compared on (earlier runs polled from the sender).
    send_paced(producer, rkt, o, o.rate, total, true);
    rd_kafka_flush(producer, 10000);
    settle_stats(producer, false);
  });
  const double start = now_s(), deadline = start + o.seconds + o.timeout_s;
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
  const double elapsed = now_s() - start;
  send.join();
  settle_stats(consumer, true);
  std::sort(pstats.latencies.begin(), pstats.latencies.end());
  const std::string produce_rtt = fmt_fields(
      {{"produce_p50_ms", percentile(pstats.latencies, 0.50)}, {"produce_p99_ms", percentile(pstats.latencies, 0.99)}});
  print_latencies("e2e", latencies, total, elapsed, pstats.requests + cstats.requests - requests0, produce_rtt);
  rd_kafka_topic_destroy(rkt);
  rd_kafka_destroy(producer);
  rd_kafka_consumer_close(consumer);
  rd_kafka_destroy(consumer);
  return long(latencies.size()) == total ? 0 : 1;
}

// One producer (one connection) of the rate mode, sending from its own thread.
struct RateProducer {
  ClientStats stats;
  rd_kafka_t* rk = nullptr;
  rd_kafka_topic_t* rkt = nullptr;
  std::thread thread;
};

int run_rate(const Options& o) {
  std::vector<std::unique_ptr<RateProducer>> producers;
  for (int i = 0; i < o.producers; ++i) {
    auto p = std::make_unique<RateProducer>();
    p->stats.timed = true;
    p->stats.latencies.reserve(size_t(o.rate * o.seconds / o.producers) + 1);
    Conf conf = base_conf(o);
    conf.set("acks", "1").set("linger.ms", "0").set("batch.num.messages", "1");
    conf.set("max.in.flight.requests.per.connection", "5").set("queue.buffering.max.messages", "10000000");
    collect(conf, &p->stats);
    p->rk = make_client(RD_KAFKA_PRODUCER, conf);
    p->rkt = rd_kafka_topic_new(p->rk, o.topic.c_str(), nullptr);
    std::string warm(8, '\0');  // connects and learns the topic before the clock runs
    produce_one(p->rk, p->rkt, warm.data(), warm.size());
    rd_kafka_flush(p->rk, int(o.timeout_s * 1000));
    p->stats.latencies.clear();
    producers.push_back(std::move(p));
  }
  long requests0 = 0;
  for (auto& p : producers) requests0 += p->stats.requests;
  const long per_producer = long(o.rate * o.seconds / o.producers);
  const int64_t stop_at = mono_ns() + int64_t(o.seconds * 1e9);
  const double start = now_s();
  for (auto& p : producers)
    p->thread = std::thread([&o, &p, per_producer, stop_at] {
      {
        Poller poller(p->rk);
        send_paced(p->rk, p->rkt, o, o.rate / o.producers, per_producer, false, stop_at);
        rd_kafka_flush(p->rk, int(o.timeout_s * 1000));
      }
      settle_stats(p->rk, false);
    });
  std::vector<int64_t> latencies;
  long requests = -requests0;
  for (auto& p : producers) {
    p->thread.join();
    latencies.insert(latencies.end(), p->stats.latencies.begin(), p->stats.latencies.end());
    requests += p->stats.requests;
  }
  // The rate over the sending window: what was delivered of what was due in it.
  print_latencies("rate", latencies, per_producer * o.producers, std::max(o.seconds, now_s() - start - 0.3), requests);
  for (auto& p : producers) {
    rd_kafka_topic_destroy(p->rkt);
    rd_kafka_destroy(p->rk);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "version") {
    std::printf("%s\n", rd_kafka_version_str());
    return 0;
  }
  Options o = parse(argc, argv);
  if (!o.stats_file.empty() && !(g_stats_out = std::fopen(o.stats_file.c_str(), "a")))
    die("cannot open --stats-file " + o.stats_file);
  if (o.mode == "produce") return run_produce(o);
  if (o.mode == "consume") return run_consume(o);
  if (o.mode == "e2e") return run_e2e(o);
  if (o.mode == "rate") return run_rate(o);
  die("unknown mode " + o.mode);
}
