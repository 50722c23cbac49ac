// The skiff binary given a single combined KRaft node's keys (as the
// apache/kafka image and Testcontainers give them): the CONTROLLER listener
// is bound and answers a client as Kafka's controller listener does
// (ApiVersions lists the controller's APIs only; Metadata closes the
// connection), the broker listener serves as before, the readiness lines
// test suites wait for are printed, and --healthcheck probes the broker
// listener even when the controller's comes first.
#include <signal.h>

#include <catch2/catch.hpp>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "tests/support/broker_process.h"
#include "tests/support/raw_client.h"

using namespace skiff::test;

namespace {

std::vector<std::string> kraft_args(const std::string& listeners, uint16_t voter_port = 0) {
  return {"--override", "listeners=" + listeners,
          "--override", "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
          "--override", "process.roles=broker,controller",
          "--override", "controller.listener.names=CONTROLLER",
          "--override", "controller.quorum.voters=1@localhost:" + std::to_string(voter_port)};
}

// ApiVersions v0 (request header v1): the API keys answered, empty on a
// closed connection.
std::set<int> api_keys(RawClient& c) {
  std::vector<uint8_t> frame = {0, 18, 0, 0, 0, 0, 0, 7, 0, 4, 't', 'e', 's', 't'};
  std::set<int> keys;
  if (!c.send_frame(frame)) return keys;
  auto a = c.read_frame();
  if (!a || a->size() < 10) return keys;
  const auto& b = *a;
  const uint32_t n = (uint32_t(b[6]) << 24) | (uint32_t(b[7]) << 16) | (uint32_t(b[8]) << 8) | b[9];
  for (uint32_t i = 0; i < n && 10 + 6 * i + 1 < b.size(); ++i) keys.insert((b[10 + 6 * i] << 8) | b[11 + 6 * i]);
  return keys;
}

// Metadata v1 for all topics; whether an answer came back.
bool metadata_answered(RawClient& c) {
  std::vector<uint8_t> frame = {0, 3, 0, 1, 0, 0, 0, 8, 0, 4, 't', 'e', 's', 't', 0xff, 0xff, 0xff, 0xff};
  return c.send_frame(frame) && c.read_frame().has_value();
}

}  // namespace

TEST_CASE("a KRaft controller listener answers a client as Kafka's does", "[lifecycle][kraft]") {
  // The controller's first, as Testcontainers' random order may give them
  // (BrokerProcess reads the port of the last listener of its startup line).
  BrokerProcess broker(kraft_args("CONTROLLER://127.0.0.1:0,PLAINTEXT://127.0.0.1:0"));
  const auto out = broker.output();
  CHECK_THAT(out, Catch::Contains("[BrokerLifecycleManager id=1] The broker is serving. Transitioning from RECOVERY "
                                  "to RUNNING.") &&
                      Catch::Contains("[KafkaServer id=1] started"));
  std::smatch m;
  REQUIRE(std::regex_search(out, m, std::regex(R"(CONTROLLER on 127\.0\.0\.1:(\d+))")));
  const auto controller_port = static_cast<uint16_t>(std::stoi(m[1]));

  RawClient controller("127.0.0.1", controller_port);
  auto keys = api_keys(controller);
  CHECK(keys.count(18));       // ApiVersions
  CHECK(keys.count(19));       // CreateTopics
  CHECK(keys.count(60));       // DescribeCluster
  CHECK(keys.count(80));       // AddRaftVoter, as the quorum admin APIs on Kafka's controller listener
  CHECK_FALSE(keys.count(0));  // Produce
  CHECK_FALSE(keys.count(1));  // Fetch
  CHECK_FALSE(keys.count(3));  // Metadata
  CHECK_FALSE(metadata_answered(controller));

  RawClient plain("127.0.0.1", broker.port());
  auto broker_keys = api_keys(plain);
  CHECK(broker_keys.count(0));
  CHECK(broker_keys.count(3));
  CHECK(metadata_answered(plain));

  // The controller listener first: the probe still goes to the broker's.
  auto listeners = "CONTROLLER://127.0.0.1:" + std::to_string(controller_port) +
                   ",PLAINTEXT://127.0.0.1:" + std::to_string(broker.port());
  auto args = kraft_args(listeners, controller_port);
  args.insert(args.begin(), "--healthcheck");
  auto r = run_skiff(args);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("127.0.0.1:" + std::to_string(broker.port())));
  CHECK(broker.stop(SIGTERM) == 0);
}
