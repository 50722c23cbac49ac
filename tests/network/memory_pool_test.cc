// queued.max.request.bytes: the MemoryPool's admission rule on its own, and
// the SocketServer keeping the request bytes in flight within it over real
// sockets, answering everything, and giving every byte back on every path.
#include "network/memory_pool.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <thread>

#include "tests/network/test_broker.h"
#include "tests/support/eventually.h"
#include "tests/support/raw_client.h"

using namespace skiff;
using skiff::network::MemoryPool;
using skiff::test::eventually;
using skiff::test::RawClient;
using skiff::test::TestBroker;
using namespace std::chrono_literals;

namespace {

network::SocketServerConfig pool_config(int64_t pool_bytes, int32_t max_frame) {
  network::SocketServerConfig cfg;
  cfg.queued_max_request_bytes = pool_bytes;
  cfg.processor.max_request_bytes = max_frame;
  return cfg;
}

// `n` clients at once each send one frame of `size` bytes and read it back.
int echo_concurrently(uint16_t port, int n, size_t size) {
  std::atomic<int> ok{0};
  std::vector<std::thread> workers;
  workers.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    workers.emplace_back([&, i] {
      RawClient c("127.0.0.1", port, 20000);
      std::vector<uint8_t> frame(size, uint8_t(i));
      if (!c.send_frame(frame)) return;
      auto r = c.read_frame();
      if (r && *r == frame) ++ok;
    });
  }
  for (auto& w : workers) w.join();
  return ok.load();
}

}  // namespace

TEST_CASE("MemoryPool admits while below capacity, overshooting by less than a frame", "[network][memory]") {
  auto pool = MemoryPool::create(100);
  auto a = pool->try_acquire(60);
  REQUIRE(a);
  auto b = pool->try_acquire(60);  // 60 < 100 in flight: admitted, now 120
  REQUIRE(b);
  CHECK_FALSE(pool->try_acquire(1));  // at or above capacity: nothing more
  CHECK(pool->in_flight() == 120);
  b.reset();
  CHECK(pool->try_acquire(1));  // 60 again: room; the lease given back at once
  a.reset();
  CHECK(pool->in_flight() == 0);
  auto big = pool->try_acquire(500);  // larger than the pool: admitted all the same
  REQUIRE(big);
  CHECK_FALSE(pool->try_acquire(1));
  MemoryPool::Lease moved = std::move(*big);
  big.reset();
  CHECK(pool->in_flight() == 500);
  moved.release();
  CHECK(pool->in_flight() == 0);
  auto unbounded = MemoryPool::create(-1);
  auto x = unbounded->try_acquire(1 << 30), y = unbounded->try_acquire(1 << 30);
  CHECK((x && y));
}

TEST_CASE("request bytes in flight stay within queued.max.request.bytes and all are answered", "[network][memory]") {
  constexpr int64_t kPool = 1 << 20;
  TestBroker broker(pool_config(kPool, 4 << 20));
  broker.handler.delay_us = 20000;  // requests pile up while handlers are slow
  const auto& pool = broker.server.memory_pool();
  CHECK(echo_concurrently(broker.port(), 24, size_t{300} * 1024) == 24);
  INFO("peak bytes in flight: " << pool->peak());
  CHECK(pool->peak() < kPool + int64_t{300} * 1024);  // at most one frame beyond the setting
  CHECK(pool->peak() >= int64_t{600} * 1024);         // more than one at a time was let in
  CHECK(eventually([&] { return pool->in_flight() == 0; }));
}

TEST_CASE("a frame larger than the pool is served when it is alone", "[network][memory]") {
  TestBroker broker(pool_config(int64_t{64} * 1024, 4 << 20));
  CHECK(echo_concurrently(broker.port(), 3, 3 << 20) == 3);
  CHECK(broker.server.memory_pool()->peak() <= (3 << 20));
  CHECK(eventually([&] { return broker.server.memory_pool()->in_flight() == 0; }));
}

TEST_CASE("a connection waiting for the pool is not closed as idle", "[network][memory]") {
  auto cfg = pool_config(int64_t{64} * 1024, 4 << 20);
  cfg.processor.connections_max_idle_ms = 200;
  TestBroker broker(cfg);
  broker.handler.delay_us = 800000;  // the first frame holds the pool for 0.8 s
  RawClient first("127.0.0.1", broker.port(), 5000), second("127.0.0.1", broker.port(), 5000);
  std::vector<uint8_t> frame(size_t{100} * 1024, 3);
  REQUIRE(first.send_frame(frame));
  std::this_thread::sleep_for(50ms);
  REQUIRE(second.send_frame(frame));  // waits for the pool for ~0.75 s, longer than the idle limit
  CHECK(first.read_frame() == frame);
  CHECK(second.read_frame() == frame);
}

TEST_CASE("bytes come back when a connection dies mid-frame or before its answer", "[network][memory]") {
  TestBroker broker(pool_config(1 << 20, 4 << 20));
  broker.handler.delay_us = 200000;
  const auto& pool = broker.server.memory_pool();
  {
    RawClient cut("127.0.0.1", broker.port());
    auto head = test::be32(2 << 20);
    std::vector<uint8_t> part(size_t{100} * 1024, 1);
    REQUIRE(cut.send_raw(head.data(), head.size()));
    REQUIRE(cut.send_raw(part.data(), part.size()));
    CHECK(eventually([&] { return pool->in_flight() == (2 << 20); }));
  }
  CHECK(eventually([&] { return pool->in_flight() == 0; }));
  {
    RawClient gone("127.0.0.1", broker.port());
    REQUIRE(gone.send_frame(std::vector<uint8_t>(1000, 2)));
    CHECK(eventually([&] { return pool->in_flight() == 1000; }));
  }
  CHECK(eventually([&] { return pool->in_flight() == 0; }));
  CHECK(echo_concurrently(broker.port(), 2, 1000) == 2);  // and the pool still admits
}
