// skiff_produce_load: one-record produce requests at a fixed rate from P
// connections, from one thread that costs the machine little, so that a
// saturation run on a 2-core machine measures the broker rather than the
// client (librdkafka spends ~39 µs of CPU per one-record request, more than
// the broker does). Not a test: run by bench/request_cost.py.
//
//   skiff_produce_load --bootstrap H:P --topic T --rate R --seconds S [--producers P] [--size B]
//                      [--partitions N]
//
// Request i is due at start + i/R on connection i mod P. Each is a Produce v9
// of one uncompressed 100 B record (acks=1, partition 0 unless --partitions),
// as librdkafka's rate mode sends; at most 5 are in flight per connection
// (Java's and librdkafka's idempotent limit); requests due while 5 are in
// flight wait, in order, in the connection's backlog. Latency = answer read -
// due time, so the time a request waited for the window counts (no
// coordinated omission).
// After S seconds nothing new falls due; the backlog and the window drain
// (at most 30 s). Prints one JSON line as `skiff_rdkafka_bench rate` does:
// records_per_s = answered / max(S, time to drain), p50/p99/p99.9/max in ms,
// requests = requests sent. Exit 1 when an answer carries an error or a
// connection fails.
//
// --partitions N (default 1): connection c sends to partition c mod N, so
// that connections do not share a partition's append; the topic is created
// with N partitions first (CreateTopics; one that exists is used as it is).
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <numeric>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/byte_order.h"
#include "log/batch_builder.h"
#include "protocol/error_codes.h"
#include "protocol/frame.h"
#include "protocol/generated/produce_request.h"
#include "protocol/generated/produce_response.h"
#include "tests/bench/load_driver.h"
#include "tests/bench/produce_frames.h"
#include "tests/support/kafka_requests.h"
#include "tests/support/raw_client.h"

using namespace skiff;

namespace {

using bench::kProduceVersion;
constexpr size_t kMaxInFlight = 5;
constexpr int64_t kDrainNs = 30'000'000'000;

using bench::mono_ns;

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "skiff_produce_load: %s\n", what.c_str());
  std::exit(1);
}

struct Options : bench::LoadOptions {
  std::string host;
  uint16_t port = 0;
  int partitions = 1;  // --partitions
};

Options parse(int argc, char** argv) {
  Options o;
  o.seconds = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::string(argv[i]) == "--partitions")
      o.partitions = std::stoi(argv[i + 1]);
    else if (!o.take(argv[i], argv[i + 1]))
      die(std::string("unknown option ") + argv[i]);
  }
  const auto colon = o.bootstrap.rfind(':');
  if (colon == std::string::npos) die("--bootstrap wants HOST:PORT");
  o.host = o.bootstrap.substr(0, colon);
  o.port = uint16_t(std::stoi(o.bootstrap.substr(colon + 1)));
  if (o.rate <= 0 || o.seconds <= 0 || o.producers < 1 || o.size < 1 || o.partitions < 1)
    die("--rate, --seconds, --producers, --size and --partitions must be positive");
  return o;
}

// The batch every request carries: one uncompressed record of o.size bytes.
std::vector<uint8_t> test_batch(const Options& o) {
  return storage::make_test_batch(1, size_t(o.size), std::time(nullptr) * 1000);
}

// The frame every request to `partition` sends; only its correlation id changes.
std::vector<uint8_t> produce_frame(const Options& o, int32_t partition) {
  protocol::ProduceRequest pr;
  pr.acks = 1;
  pr.timeout_ms = 30000;
  protocol::ProduceRequest::TopicProduceData td;
  td.name = o.topic;
  protocol::ProduceRequest::PartitionProduceData pd;
  pd.index = partition;
  const auto batch = test_batch(o);
  pd.records = protocol::Records::bytes(batch);  // a view: `batch` outlives the encoding below
  td.partition_data.push_back(pd);
  pr.topic_data.push_back(td);
  protocol::RequestHeader h;
  h.client_id = "skiff-produce-load";
  return protocol::encode_request_frame(h, kProduceVersion, pr);
}

int connect_to(const Options& o) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(o.port);
  if (fd < 0 || inet_pton(AF_INET, o.host.c_str(), &a.sin_addr) != 1) die("cannot make a socket to " + o.host);
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) die(std::string("connect: ") + std::strerror(errno));
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  return fd;
}

// Creates the topic with o.partitions partitions (replication 1), or finds it
// there already, and waits (at most 30 s) until every partition takes a
// produce: Kafka answers CreateTopics, and even Metadata, before they do.
void create_topic(const Options& o) {
  test::RawClient c(o.host, o.port);
  if (!c.connected()) die("cannot connect to " + o.bootstrap);
  test::KafkaRequests k(c);
  const int16_t created = k.create_topics({o.topic}, o.partitions)[o.topic];
  if (created != 0 && created != int16_t(ErrorCode::kTopicAlreadyExists))
    die("CreateTopics answered with error " + std::to_string(created));
  std::vector<int32_t> waiting(size_t(o.partitions));
  std::iota(waiting.begin(), waiting.end(), 0);
  const auto batch = test_batch(o);
  const int64_t until = mono_ns() + 30'000'000'000;
  while (true) {
    std::vector<int32_t> still;
    for (const auto& [p, e] : k.produce(o.topic, waiting, batch)) {
      using skiff::ErrorCode;
      if (e == 0) continue;
      if (e != int16_t(ErrorCode::kUnknownTopicOrPartition) && e != int16_t(ErrorCode::kLeaderNotAvailable) &&
          e != int16_t(ErrorCode::kNotLeaderOrFollower))
        die("produce answered with error " + std::to_string(e));
      still.push_back(p);
    }
    if (still.empty()) return;
    if (mono_ns() > until) die("partition " + std::to_string(still.front()) + " takes no produce after 30 s");
    waiting = std::move(still);
    usleep(50'000);
  }
}

// One connection: its requests in flight and waiting, in due order, and the
// bytes not yet written or not yet parsed.
struct Conn {
  int fd = -1;
  std::vector<uint8_t> frame;              // what each request sends
  std::deque<int64_t> in_flight, backlog;  // due times
  std::vector<uint8_t> out, in;
  size_t out_sent = 0;
  bool want_write = false;
};

class Load {
 public:
  explicit Load(const Options& o) : o_(o), ep_(epoll_create1(EPOLL_CLOEXEC)) {
    conns_.resize(size_t(o.producers));
    for (size_t i = 0; i < conns_.size(); ++i) {
      conns_[i].frame = produce_frame(o, int32_t(i % size_t(o.partitions)));
      conns_[i].fd = connect_to(o);
      epoll_event ev{EPOLLIN, {.u64 = i}};
      epoll_ctl(ep_, EPOLL_CTL_ADD, conns_[i].fd, &ev);
    }
    latencies_.reserve(size_t(o.rate * o.seconds) + 1);
  }

  void run() {
    const int64_t start = mono_ns();
    const auto total = long(o_.rate * o_.seconds);
    const double interval = 1e9 / o_.rate;
    auto due = [&](long i) { return start + int64_t(double(i) * interval); };
    long next = 0;
    while (true) {
      const int64_t now = mono_ns();
      for (; next < total && due(next) <= now; ++next) conns_[size_t(next % o_.producers)].backlog.push_back(due(next));
      for (size_t i = 0; i < conns_.size(); ++i) fill_window(i);
      if (next == total && idle()) break;
      if (now - start > int64_t(o_.seconds * 1e9) + kDrainNs) die("the broker did not answer within 30 s");
      const int64_t wait = next < total ? due(next) - now : 100'000'000;
      poll(std::max<int64_t>(0, wait));
    }
    elapsed_s_ = double(mono_ns() - start) / 1e9;
  }

  void report() {
    bench::print_latencies("rate", latencies_, long(o_.rate * o_.seconds), std::max(o_.seconds, elapsed_s_), sent_);
  }

 private:
  bool idle() const {
    return std::all_of(conns_.begin(), conns_.end(),
                       [](const Conn& c) { return c.in_flight.empty() && c.backlog.empty(); });
  }

  // Moves waiting requests into the window and writes what the socket takes.
  void fill_window(size_t i) {
    Conn& c = conns_[i];
    while (!c.backlog.empty() && c.in_flight.size() < kMaxInFlight) {
      c.in_flight.push_back(c.backlog.front());
      c.backlog.pop_front();
      const size_t at = c.out.size();
      c.out.insert(c.out.end(), c.frame.begin(), c.frame.end());
      store_be32(c.out.data() + at + bench::kRequestCorrelationAt, uint32_t(++sent_));
    }
    if (!c.want_write) flush(i);
  }

  // Writes what the socket takes; asks for EPOLLOUT only while bytes wait.
  void flush(size_t i) {
    Conn& c = conns_[i];
    while (c.out_sent < c.out.size()) {
      const ssize_t n = ::send(c.fd, c.out.data() + c.out_sent, c.out.size() - c.out_sent, MSG_NOSIGNAL);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
      if (n <= 0) die(std::string("send: ") + std::strerror(errno));
      c.out_sent += size_t(n);
    }
    if (c.out_sent == c.out.size()) {
      c.out.clear();
      c.out_sent = 0;
    }
    if (c.want_write == !c.out.empty()) return;
    c.want_write = !c.out.empty();
    const uint32_t events = c.want_write ? EPOLLIN | EPOLLOUT : EPOLLIN;
    epoll_event ev{events, {.u64 = i}};
    epoll_ctl(ep_, EPOLL_CTL_MOD, c.fd, &ev);
  }

  void poll(int64_t wait_ns) {
    epoll_event evs[64];
    const timespec ts{time_t(wait_ns / 1'000'000'000), long(wait_ns % 1'000'000'000)};
    const int n = epoll_pwait2(ep_, evs, 64, &ts, nullptr);
    if (n < 0 && errno != EINTR) die(std::string("epoll: ") + std::strerror(errno));
    for (int k = 0; k < n; ++k) {
      const size_t i = evs[k].data.u64;
      if (evs[k].events & EPOLLOUT) flush(i);
      if (evs[k].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) read_answers(conns_[i]);
    }
  }

  void read_answers(Conn& c) {
    uint8_t buf[65536];
    ssize_t n;
    while ((n = ::recv(c.fd, buf, sizeof buf, 0)) > 0) c.in.insert(c.in.end(), buf, buf + n);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) die("the broker closed a connection");
    size_t at = 0;
    const int64_t now = mono_ns();
    for (size_t size; (size = bench::whole_frame_at(c.in, at)) != 0; at += size) {
      check_answer(c.in.data() + at + 4, size - 4);
      if (c.in_flight.empty()) die("an answer to nothing asked");
      latencies_.push_back(now - c.in_flight.front());
      c.in_flight.pop_front();
    }
    c.in.erase(c.in.begin(), c.in.begin() + long(at));
  }

  static void check_answer(const uint8_t* p, size_t size) {
    protocol::ByteReader r(std::span<const uint8_t>(p, size));
    protocol::ResponseHeader h;
    h.decode(r, protocol::response_header_version(protocol::ProduceResponse::kApiKey, kProduceVersion));
    protocol::ProduceResponse resp;
    resp.decode(r, kProduceVersion);
    for (const auto& t : resp.responses)
      for (const auto& part : t.partition_responses)
        if (part.error_code != 0) die("produce answered with error " + std::to_string(part.error_code));
  }

  Options o_;
  int ep_;
  std::vector<Conn> conns_;
  std::vector<int64_t> latencies_;
  long sent_ = 0;
  double elapsed_s_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  prctl(PR_SET_TIMERSLACK, 1UL);  // a 50 µs default slack would bunch requests due 30 µs apart
  try {
    const Options o = parse(argc, argv);
    if (o.partitions > 1) create_topic(o);
    Load load(o);
    load.run();
    load.report();
  } catch (const std::exception& e) {
    die(e.what());
  }
  return 0;
}
