// queued.max.request.bytes against the real binary: 100 connections each
// send a maximum-size frame (socket.request.max.bytes) at once. The broker's
// peak RSS must stay within a bound derived from the setting, not grow with
// the number of connections, and every request must still be answered.
#include <signal.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <thread>
#include <vector>

#include "tests/support/broker_process.h"
#include "tests/support/process_probe.h"
#include "tests/support/raw_client.h"

using namespace skiff::test;

namespace {

constexpr int kConnections = 100;
constexpr int64_t kFrame = 4 << 20;          // socket.request.max.bytes
constexpr int64_t kQueuedBytes = 8 << 20;    // queued.max.request.bytes
constexpr int64_t kReadBuffers = 128 << 10;  // per connection, outside the pool
constexpr int64_t kSlack = 12 << 20;         // allocator, threads, the response path

// An ApiVersions v0 request padded with zeros to a whole frame of kFrame bytes.
std::vector<uint8_t> padded_api_versions(int32_t correlation_id) {
  std::vector<uint8_t> frame = be32(static_cast<uint32_t>(kFrame));
  std::vector<uint8_t> header = {0, 18, 0, 0};
  auto id = be32(static_cast<uint32_t>(correlation_id));
  header.insert(header.end(), id.begin(), id.end());
  header.insert(header.end(), {0, 4, 't', 'e', 's', 't'});
  frame.insert(frame.end(), header.begin(), header.end());
  frame.resize(4 + kFrame, 0);
  return frame;
}

}  // namespace

TEST_CASE("100 max-size frames at once keep RSS within queued.max.request.bytes", "[limits][memory]") {
  BrokerProcess broker({"--override", "socket.request.max.bytes=" + std::to_string(kFrame), "--override",
                        "queued.max.request.bytes=" + std::to_string(kQueuedBytes)});
  const int64_t baseline = rss_bytes(broker.pid());
  const auto frame = padded_api_versions(42);
  std::atomic<int> answered{0};
  std::vector<std::thread> clients;
  for (int i = 0; i < kConnections; ++i) {
    clients.emplace_back([&] {
      RawClient c("127.0.0.1", broker.port(), 60000);
      if (!c.send_raw(frame.data(), frame.size())) return;
      auto r = c.read_frame();
      if (r && r->size() >= 6 && (*r)[3] == 42 && (*r)[4] == 0 && (*r)[5] == 0) ++answered;
    });
  }
  for (auto& t : clients) t.join();
  const int64_t growth = peak_rss_bytes(broker.pid()) - baseline;
  // As in Kafka, the pool admits while below its setting: one frame beyond it at most.
  const int64_t bound = kQueuedBytes + kFrame + kConnections * kReadBuffers + kSlack;
  INFO("baseline RSS " << baseline / 1024 << " KiB; peak growth " << growth / 1024 << " KiB; bound " << bound / 1024
                       << " KiB");
  CHECK(answered.load() == kConnections);
  CHECK(growth < bound);
  CHECK(broker.stop(SIGTERM) == 0);
}
