// num.io.threads and num.network.threads resized live (SocketServer::
// resize_processors, RequestHandlerPool::resize) while clients send requests
// without pause: every request the handler saw gets its response (none is
// dropped with a removed thread or Processor), every response matches its
// request, and the pools end at the size asked for. A client whose
// connection is closed by a removed Processor (only ever between requests)
// reconnects and goes on, as Kafka's clients do.
#include <atomic>
#include <catch2/catch.hpp>
#include <thread>

#include "tests/network/test_broker.h"
#include "tests/support/raw_client.h"

using namespace skiff;
using skiff::test::RawClient;
using skiff::test::TestBroker;

namespace {

std::vector<uint8_t> request(uint32_t client, uint32_t seq) {
  auto p = test::be32(client);
  auto s = test::be32(seq);
  p.insert(p.end(), s.begin(), s.end());
  p.resize(64, uint8_t(seq));
  return p;
}

struct Load {
  std::atomic<bool> stop{false};
  std::atomic<int64_t> answered{0};
  std::atomic<int64_t> mismatched{0};
  std::atomic<int64_t> reconnects{0};

  // One client: request, response, next; a closed connection is reopened
  // and the unanswered request sent again (it was never read: see above).
  void run(uint16_t port, uint32_t id) {
    RawClient c("127.0.0.1", port, 5000);
    for (uint32_t seq = 0; !stop;) {
      auto req = request(id, seq);
      auto r = c.send_frame(req) ? c.read_frame() : std::nullopt;
      if (!r) {
        ++reconnects;
        c = RawClient("127.0.0.1", port, 5000);
        continue;
      }
      if (*r != req) ++mismatched;
      ++answered;
      ++seq;
    }
  }
};

}  // namespace

TEST_CASE("handler threads and processors resized under load: no request lost", "[network][resize]") {
  network::SocketServerConfig cfg;
  cfg.num_processors = 2;
  TestBroker b(cfg, 500, 2);
  b.handler.jitter = true;  // handling takes 0-200 us: requests are often in flight at a resize
  Load load;
  std::vector<std::thread> clients;
  for (uint32_t i = 0; i < 16; ++i) clients.emplace_back([&, i] { load.run(b.port(), i); });

  // Kafka's bounds allow at most doubling or halving per change.
  for (int n : {4, 8, 4, 2, 1, 2, 3}) {
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    b.handlers->resize(n);
    REQUIRE(b.server.resize_processors(n, std::chrono::seconds(5)));
    CHECK(b.handlers->size() == n);
    CHECK(b.server.processor_count() == n);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  load.stop = true;
  for (auto& t : clients) t.join();

  CHECK(load.mismatched == 0);
  CHECK(load.answered > 1000);
  // Every request a handler took was answered: nothing dropped in a resize.
  CHECK(load.answered == b.handler.handled.load());
  // Connections of removed Processors were closed and reopened.
  CHECK(load.reconnects > 0);
  // And the broker still serves new connections on the pools it has now.
  RawClient late("127.0.0.1", b.port());
  REQUIRE(late.send_frame(request(99, 1)));
  CHECK(late.read_frame() == request(99, 1));
}
