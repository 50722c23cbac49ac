// SocketServer over real sockets with a test handler: ordering under
// pipelining, quotas, malformed frames, backpressure, idle expiry, shutdown.
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cstring>
#include <thread>

#include "tests/network/test_broker.h"
#include "tests/support/eventually.h"
#include "tests/support/raw_client.h"

using namespace skiff;
using skiff::test::eventually;
using skiff::test::RawClient;
using skiff::test::TestBroker;

namespace {

std::vector<uint8_t> payload(uint32_t conn, uint32_t seq, size_t pad = 16) {
  std::vector<uint8_t> p = test::be32(conn);
  auto s = test::be32(seq);
  p.insert(p.end(), s.begin(), s.end());
  p.resize(8 + pad, uint8_t(seq));
  return p;
}

// Every connection sends `per_conn` frames back to back, then reads them all;
// returns how many connections got every response, in order, byte for byte.
int pipeline_round(uint16_t port, int connections, int per_conn, int threads) {
  std::atomic<int> ok{0};
  std::vector<std::thread> workers;
  workers.reserve(static_cast<size_t>(threads));
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      std::vector<RawClient> clients;
      for (int c = t; c < connections; c += threads) clients.emplace_back("127.0.0.1", port);
      int idx = 0;
      for (int c = t; c < connections; c += threads, ++idx)
        for (int s = 0; s < per_conn; ++s) clients[idx].send_frame(payload(c, s));
      idx = 0;
      for (int c = t; c < connections; c += threads, ++idx) {
        bool good = clients[idx].connected();
        for (int s = 0; s < per_conn && good; ++s) {
          auto r = clients[idx].read_frame();
          good = r && *r == payload(c, s);
        }
        if (good) ++ok;
      }
    });
  }
  for (auto& w : workers) w.join();
  return ok.load();
}

}  // namespace

TEST_CASE("1000 concurrent connections pipelining 5 requests get every response in order", "[network]") {
  network::SocketServerConfig cfg;
  cfg.num_processors = 3;
  cfg.processor.coalesce_us = GENERATE(0, 500);  // skiff.network.coalesce.us off, and the broker's default
  TestBroker broker(cfg, 500, 8);
  broker.handler.jitter = true;  // handlers finish out of order; responses must not
  REQUIRE(pipeline_round(broker.port(), 1000, 5, 10) == 1000);
  CHECK(broker.handler.handled == 5000);
}

TEST_CASE("a full RequestChannel slows readers without losing or reordering requests", "[network]") {
  network::SocketServerConfig cfg;
  cfg.num_processors = 2;
  TestBroker broker(cfg, /*queue=*/2, /*handler_threads=*/2);
  broker.handler.delay_us = 300;
  REQUIRE(pipeline_round(broker.port(), 40, 10, 4) == 40);
  CHECK(broker.handler.handled == 400);
}

TEST_CASE("max.connections.per.ip closes the 11th connection and frees the slot on close", "[network]") {
  network::SocketServerConfig cfg;
  cfg.max_connections_per_ip = 10;
  TestBroker broker(cfg);
  std::vector<RawClient> clients;
  for (int i = 0; i < 10; ++i) {
    clients.emplace_back("127.0.0.1", broker.port());
    REQUIRE(clients.back().send_frame(payload(i, 0)));
    REQUIRE(clients.back().read_frame() == payload(i, 0));
  }
  RawClient extra("127.0.0.1", broker.port());
  REQUIRE(extra.connected());  // TCP accepts; the broker then closes it
  CHECK(extra.wait_closed());
  CHECK(broker.server.quotas()->count("127.0.0.1") == 10);
  auto listener = [&] { return broker.server.quotas()->by_listener()["PLAINTEXT"]; };
  CHECK(listener().open == 10);      // per listener, for /metrics
  CHECK(listener().accepted == 10);  // the refused one was never accepted

  clients.front().close();
  REQUIRE(eventually([&] { return broker.server.quotas()->count("127.0.0.1") == 9; }));
  CHECK(listener().open == 9);
  CHECK(listener().accepted == 10);
  RawClient again("127.0.0.1", broker.port());
  REQUIRE(again.send_frame(payload(99, 1)));
  CHECK(again.read_frame() == payload(99, 1));
}

TEST_CASE("per-IP overrides and the broker-wide limit", "[network]") {
  SECTION("override raises the limit for one address") {
    network::SocketServerConfig cfg;
    cfg.max_connections_per_ip = 1;
    cfg.max_connections_per_ip_overrides = {{"127.0.0.1", 3}};
    TestBroker broker(cfg);
    std::vector<RawClient> clients;
    for (int i = 0; i < 3; ++i) {
      clients.emplace_back("127.0.0.1", broker.port());
      REQUIRE(clients.back().send_frame(payload(i, 0)));
      REQUIRE(clients.back().read_frame() == payload(i, 0));
    }
    RawClient extra("127.0.0.1", broker.port());
    CHECK(extra.wait_closed());
  }
  SECTION("max.connections") {
    network::SocketServerConfig cfg;
    cfg.max_connections = 2;
    TestBroker broker(cfg);
    RawClient a("127.0.0.1", broker.port()), b("127.0.0.1", broker.port());
    REQUIRE(a.send_frame(payload(1, 0)));
    REQUIRE(a.read_frame());
    REQUIRE(b.send_frame(payload(2, 0)));
    REQUIRE(b.read_frame());
    RawClient c("127.0.0.1", broker.port());
    CHECK(c.wait_closed());
  }
}

TEST_CASE("each malformed frame closes only its own connection", "[network]") {
  network::SocketServerConfig cfg;
  cfg.processor.max_request_bytes = 1024;
  TestBroker broker(cfg);
  RawClient healthy("127.0.0.1", broker.port());
  uint32_t seq = 0;
  auto healthy_still_answers = [&] {
    ++seq;
    return healthy.send_frame(payload(7, seq)) && healthy.read_frame() == payload(7, seq);
  };

  SECTION("negative size") {
    RawClient bad("127.0.0.1", broker.port());
    uint8_t neg[4] = {0xff, 0xff, 0xff, 0xfe};
    bad.send_raw(neg, 4);
    CHECK(bad.wait_closed());
  }
  SECTION("size above socket.request.max.bytes") {
    RawClient bad("127.0.0.1", broker.port());
    auto size = test::be32(1025);
    bad.send_raw(size.data(), 4);
    CHECK(bad.wait_closed());
  }
  SECTION("frame cut short, then the client goes away") {
    {
      RawClient bad("127.0.0.1", broker.port());
      auto size = test::be32(100);
      bad.send_raw(size.data(), 4);
      bad.send_raw("0123456789", 10);
    }
    REQUIRE(eventually([&] { return broker.server.connection_count() == 1; }));
  }
  SECTION("garbage bytes") {
    RawClient bad("127.0.0.1", broker.port());
    std::vector<uint8_t> junk(64);
    for (size_t i = 0; i < junk.size(); ++i) junk[i] = uint8_t(0xA5 ^ (i * 37));
    bad.send_raw(junk.data(), junk.size());
    CHECK(bad.wait_closed());
  }
  SECTION("a frame the handler cannot decode") {
    RawClient bad("127.0.0.1", broker.port());
    bad.send_frame({'C', 'L', 'O', 'S', 'E'});
    CHECK(bad.wait_closed());
  }
  CHECK(healthy_still_answers());
  CHECK(healthy_still_answers());
}

TEST_CASE("large frames arrive whole", "[network]") {
  network::SocketServerConfig cfg;
  TestBroker broker(cfg);
  RawClient c("127.0.0.1", broker.port());
  std::vector<uint8_t> big(3 * 1024 * 1024 + 7);
  for (size_t i = 0; i < big.size(); ++i) big[i] = uint8_t(i * 31 + 7);
  REQUIRE(c.send_frame(big));
  REQUIRE(c.send_frame(payload(1, 2)));
  CHECK(c.read_frame() == big);
  CHECK(c.read_frame() == payload(1, 2));
}

TEST_CASE("frames of every size pipelined back to back arrive whole and in order", "[network]") {
  // Small frames are handed on as views into the read buffer, mid-size ones
  // grow it, huge ones get a buffer of their own; handlers hold the views
  // while the Connection goes on reading.
  network::SocketServerConfig cfg;
  TestBroker broker(cfg);
  broker.handler.jitter = true;
  RawClient c("127.0.0.1", broker.port());
  const size_t sizes[] = {
      100, 70000, 3, 65536 - 4, 65536 + 10, 200, 500000, 0, size_t{2} * 1024 * 1024, 17, 70001, size_t{64} * 1024};
  std::vector<std::vector<uint8_t>> frames;
  for (size_t k = 0; k < std::size(sizes); ++k) {
    std::vector<uint8_t> f(sizes[k]);
    for (size_t i = 0; i < f.size(); ++i) f[i] = uint8_t(i * 13 + k);
    frames.push_back(std::move(f));
  }
  for (int round = 0; round < 3; ++round) {
    for (auto& f : frames) REQUIRE(c.send_frame(f));
    for (auto& f : frames) CHECK(c.read_frame() == f);
  }
}

TEST_CASE("a no-op response unmutes the connection without writing", "[network]") {
  network::SocketServerConfig cfg;
  TestBroker broker(cfg);
  RawClient c("127.0.0.1", broker.port());
  REQUIRE(c.send_frame({'N', 'O', 'O', 'P'}));
  REQUIRE(c.send_frame(payload(3, 3)));
  CHECK(c.read_frame() == payload(3, 3));
}

TEST_CASE("a throttled response mutes its connection, and only it, for the throttle time", "[network]") {
  network::SocketServerConfig cfg;
  TestBroker broker(cfg);
  RawClient c("127.0.0.1", broker.port());
  RawClient other("127.0.0.1", broker.port());
  const std::vector<uint8_t> throttled{'T', 'H', 'R', 'T'};
  const auto start = std::chrono::steady_clock::now();
  REQUIRE(c.send_frame(throttled));
  REQUIRE(c.send_frame(payload(4, 1)));  // pipelined: waits out the mute
  CHECK(c.read_frame() == throttled);    // the throttled answer itself is not delayed
  CHECK(std::chrono::steady_clock::now() - start < test::EchoHandler::kThrottle);
  REQUIRE(other.send_frame(payload(5, 1)));  // another connection is not muted
  CHECK(other.read_frame() == payload(5, 1));
  CHECK(std::chrono::steady_clock::now() - start < test::EchoHandler::kThrottle);
  CHECK(c.read_frame() == payload(4, 1));
  CHECK(std::chrono::steady_clock::now() - start >= test::EchoHandler::kThrottle);
}

TEST_CASE("an IP over its connection_creation_rate has new connections held, then closed", "[network]") {
  network::SocketServerConfig cfg;
  TestBroker broker(cfg);
  broker.server.quotas()->set_ip_rate_quota([](const std::string& ip) -> std::optional<double> {
    return ip == "127.0.0.1" ? std::optional<double>(1.0) : std::nullopt;  // 1/s: 10 over the first 10 s
  });
  for (uint32_t i = 0; i < 10; ++i) {
    RawClient c("127.0.0.1", broker.port());
    REQUIRE(c.send_frame(payload(6, i)));
    CHECK(c.read_frame() == payload(6, i));
  }
  const auto start = std::chrono::steady_clock::now();
  RawClient over("127.0.0.1", broker.port());  // (11 - 10) / 10 over: ~1 s held
  over.send_frame(payload(6, 99));
  CHECK_FALSE(over.read_frame().has_value());
  CHECK(std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(500));
  CHECK(broker.server.quotas()->rate_throttled() == 1);
}

TEST_CASE("idle connections are closed after connections.max.idle.ms", "[network]") {
  network::SocketServerConfig cfg;
  cfg.processor.connections_max_idle_ms = 200;
  TestBroker broker(cfg);
  RawClient c("127.0.0.1", broker.port());
  REQUIRE(c.send_frame(payload(1, 1)));
  REQUIRE(c.read_frame());
  auto t0 = std::chrono::steady_clock::now();
  CHECK(c.wait_closed());
  CHECK(std::chrono::steady_clock::now() - t0 >= std::chrono::milliseconds(150));
}

TEST_CASE("a frame dribbled a byte at a time (slowloris) is closed after connections.max.idle.ms", "[network]") {
  network::SocketServerConfig cfg;
  cfg.processor.connections_max_idle_ms = 300;
  TestBroker broker(cfg);
  RawClient slow("127.0.0.1", broker.port(), 100);  // wait_closed: closed already, or within 100 ms
  auto frame = test::be32(1000);
  frame.resize(4 + 1000, 7);
  auto t0 = std::chrono::steady_clock::now();
  for (size_t i = 0; i < frame.size(); ++i) {  // a byte every 20 ms for 1.5 s, 5 idle limits
    if (!slow.send_raw(&frame[i], 1)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (std::chrono::steady_clock::now() - t0 > std::chrono::milliseconds(1500)) break;
  }
  CHECK(slow.wait_closed());
  RawClient other("127.0.0.1", broker.port());  // and others were served throughout
  REQUIRE(other.send_frame(payload(2, 2)));
  CHECK(other.read_frame() == payload(2, 2));
}

TEST_CASE("graceful shutdown answers the requests in flight", "[network]") {
  network::SocketServerConfig cfg;
  TestBroker broker(cfg, 500, 4);
  broker.handler.delay_us = 300'000;
  std::vector<RawClient> clients;
  for (int i = 0; i < 8; ++i) {
    clients.emplace_back("127.0.0.1", broker.port());
    REQUIRE(clients.back().send_frame(payload(i, 0)));
  }
  REQUIRE(eventually([&] { return broker.server.in_flight() == 8; }));
  broker.server.stop_accepting();
  REQUIRE(broker.server.drain(std::chrono::seconds(10)));
  for (int i = 0; i < 8; ++i) {
    CHECK(clients[i].read_frame() == payload(i, 0));
    CHECK(clients[i].wait_closed());
  }
  RawClient late("127.0.0.1", broker.port(), 1000);
  CHECK_FALSE(late.connected());
}

TEST_CASE("localhost listens on both 127.0.0.1 and ::1", "[network]") {
  network::SocketServerConfig cfg;
  cfg.listeners.push_back({"PLAINTEXT", "localhost", 0, nullptr});
  TestBroker broker(cfg);
  RawClient v4("127.0.0.1", broker.port());
  REQUIRE(v4.send_frame(payload(4, 4)));
  CHECK(v4.read_frame() == payload(4, 4));
  RawClient v6("::1", broker.port());
  REQUIRE(v6.send_frame(payload(6, 6)));
  CHECK(v6.read_frame() == payload(6, 6));
}

TEST_CASE("a port already in use is a clear bind error", "[network]") {
  network::SocketServerConfig cfg;
  TestBroker first(cfg);
  network::SocketServerConfig second_cfg;
  second_cfg.listeners.push_back({"PLAINTEXT", "127.0.0.1", first.port(), nullptr});
  network::RequestChannel channel(10);
  network::SocketServer second(second_cfg, channel);
  REQUIRE_THROWS_WITH(second.startup(), Catch::Contains("already in use"));
}

// Pipelined requests are staged behind the owed response and taken on by the
// thread that writes it (response_gate.h): order must hold through requests
// with no response (acks=0) and through a throttle, which holds the staged
// requests until the mute ends.
TEST_CASE("one connection pipelining 600 requests is answered in order, through acks=0 and a throttle", "[network]") {
  network::SocketServerConfig cfg;
  cfg.num_processors = 1;
  cfg.processor.coalesce_us = GENERATE(0, 500);
  TestBroker broker(cfg, 500, 3);
  broker.handler.jitter = true;
  RawClient c("127.0.0.1", broker.port());
  auto frame = [](int s) {
    auto p = payload(0, uint32_t(s));
    if (s % 50 == 7) std::memcpy(p.data(), "NOOP", 4);  // no response
    if (s == 300) std::memcpy(p.data(), "THRT", 4);     // mutes the connection once answered
    return p;
  };
  for (int s = 0; s < 600; ++s) REQUIRE(c.send_frame(frame(s)));
  std::chrono::steady_clock::time_point throttled_at{};
  for (int s = 0; s < 600; ++s) {
    if (s % 50 == 7) continue;
    auto r = c.read_frame();
    REQUIRE(r);
    REQUIRE(*r == frame(s));
    if (s == 300) throttled_at = std::chrono::steady_clock::now();
    if (s == 301) CHECK(std::chrono::steady_clock::now() - throttled_at >= test::EchoHandler::kThrottle * 9 / 10);
  }
  CHECK(broker.handler.handled == 600);
  CHECK(broker.channel.handed_on() > 0);  // some were taken on by the thread that answered the one before
}

namespace {
// Rounds of `window` pipelined requests per client, all sent, then all
// answered; how long.
std::chrono::steady_clock::duration ping_pong(std::vector<RawClient>& clients, int rounds, int window = 1) {
  const auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < rounds; ++r) {
    for (size_t c = 0; c < clients.size(); ++c)
      for (int w = 0; w < window; ++w) REQUIRE(clients[c].send_frame(payload(uint32_t(c), uint32_t(r * window + w))));
    for (size_t c = 0; c < clients.size(); ++c)
      for (int w = 0; w < window; ++w) {
        auto got = clients[c].read_frame();
        REQUIRE(got);
        REQUIRE(*got == payload(uint32_t(c), uint32_t(r * window + w)));
      }
  }
  return std::chrono::steady_clock::now() - start;
}
}  // namespace

// skiff.network.coalesce.us (processor.cc, run_loop): a loop that keeps
// finding requests of several connections sleeps a period between looks; a
// single connection is never held. The period here (40 ms) dwarfs any
// scheduling noise: unheld, a round takes well under a millisecond.
TEST_CASE("coalescing holds a loop serving several busy connections, never one connection alone", "[network]") {
  using namespace std::chrono_literals;
  network::SocketServerConfig cfg;
  cfg.num_processors = 1;
  cfg.processor.coalesce_us = 40000;
  TestBroker broker(cfg, 500, 2);
  SECTION("three connections: most rounds wait out a period") {
    std::vector<RawClient> clients;
    clients.reserve(3);
    for (int i = 0; i < 3; ++i) clients.emplace_back("127.0.0.1", broker.port());
    CHECK(ping_pong(clients, 10) >= 4 * 40ms);
  }
  SECTION("three connections keeping five in flight each: the hold shrinks below a window per period") {
    std::vector<RawClient> clients;
    clients.reserve(3);
    for (int i = 0; i < 3; ++i) clients.emplace_back("127.0.0.1", broker.port());
    // Held a whole period per round, 30 rounds would take 30 periods; the
    // hold is 4/5 of the last round's from the second on (coalescing.h),
    // about 5 periods in all.
    CHECK(ping_pong(clients, 30, 5) < 15 * 40ms);
  }
  SECTION("one connection: answered at once, round after round") {
    std::vector<RawClient> clients;
    clients.emplace_back("127.0.0.1", broker.port());
    CHECK(ping_pong(clients, 20) < 10 * 40ms);  // held, it would take 20 periods
  }
}

namespace {
// Segments the client sent that its kernel has not seen acknowledged yet.
uint32_t unacked(const RawClient& c) {
  tcp_info info{};
  socklen_t len = sizeof info;
  REQUIRE(::getsockopt(c.fd(), IPPROTO_TCP, TCP_INFO, &info, &len) == 0);
  return info.tcpi_unacked;
}
}  // namespace

// Connection::acknowledge_now: a request read is acknowledged at once, not
// with its response, so a client that leaves Nagle on (librdkafka) need not
// wait for the answer to send what it holds. A few round trips first put the
// broker's side in delayed-ACK ("pingpong") mode, where the kernel would hold
// the ACK for the response; the handler then takes 300 ms to answer. The
// handler counts the request only after the Processor's read, and so after
// the acknowledgement; the kernel's own delayed ACK fires 40 ms or more after
// the segment, far beyond the check that follows.
TEST_CASE("a request read is acknowledged before its response is written", "[network]") {
  network::SocketServerConfig cfg;
  cfg.num_processors = 1;
  cfg.processor.coalesce_us = GENERATE(0, 500);  // one connection is never coalesced
  TestBroker broker(cfg, 500, 1);
  RawClient c("127.0.0.1", broker.port());
  for (uint32_t s = 0; s < 20; ++s) {
    REQUIRE(c.send_frame(payload(0, s)));
    REQUIRE(c.read_frame() == payload(0, s));
  }
  broker.handler.delay_us = 300000;
  const int before = broker.handler.handled;
  REQUIRE(c.send_frame(payload(0, 20)));
  REQUIRE(eventually([&] { return broker.handler.handled > before; }));
  CHECK(unacked(c) == 0);
  CHECK(c.read_frame() == payload(0, 20));
}
