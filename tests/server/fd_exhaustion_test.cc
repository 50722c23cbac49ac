// Out of file descriptors: with RLIMIT_NOFILE lowered under the real broker,
// accept fails with EMFILE. The broker must not spin on it (its CPU time stays
// small), must log it a bounded number of times, must keep answering the
// connections already open, and must accept again once descriptors free up.
#include <signal.h>

#include <catch2/catch.hpp>
#include <thread>
#include <vector>

#include "tests/support/broker_process.h"
#include "tests/support/process_probe.h"
#include "tests/support/raw_client.h"

using namespace skiff::test;
using namespace std::chrono_literals;

TEST_CASE("accept at the descriptor limit backs off, keeps serving and recovers", "[limits][emfile]") {
  BrokerProcess broker;
  std::vector<RawClient> existing;
  for (int i = 0; i < 3; ++i) {
    existing.emplace_back("127.0.0.1", broker.port());
    REQUIRE(api_versions_ok(existing.back(), i));
  }
  const int open_now = open_fd_count(broker.pid());
  REQUIRE(open_now > 0);
  REQUIRE(set_fd_limit(broker.pid(), static_cast<uint64_t>(open_now + 8)));

  std::vector<RawClient> flood;  // more than the limit leaves room for
  for (int i = 0; i < 40; ++i) flood.emplace_back("127.0.0.1", broker.port(), 3000);
  std::this_thread::sleep_for(300ms);

  const double cpu_before = cpu_seconds(broker.pid());
  std::this_thread::sleep_for(2s);
  const double cpu_used = cpu_seconds(broker.pid()) - cpu_before;
  INFO("broker CPU over 2 s at the descriptor limit: " << cpu_used << " s");
  CHECK(cpu_used < 0.3);
  const size_t lines = count_lines_with(broker.output(), "accept on listener");
  INFO("accept failure log lines: " << lines);
  CHECK(lines >= 1);
  CHECK(lines <= 3);

  for (int i = 0; i < 3; ++i) CHECK(api_versions_ok(existing[i], 100 + i));

  flood.clear();  // descriptors free up as the broker sees these close
  std::this_thread::sleep_for(1500ms);
  RawClient fresh("127.0.0.1", broker.port(), 5000);
  REQUIRE(fresh.connected());
  CHECK(api_versions_ok(fresh, 200));
  CHECK(broker.stop(SIGTERM) == 0);
}
