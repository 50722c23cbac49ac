// The real skiff binary against hostile clients (issue 14): a CreateTopics of
// 1,000,000 partitions is refused at once and leaves neither directories nor
// memory behind (item 3); a client id that tries to forge log lines reaches
// the log as one escaped line (item 7).
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "protocol/byte_reader.h"
#include "protocol/frame.h"
#include "protocol/generated/create_topics_request.h"
#include "protocol/generated/create_topics_response.h"
#include "tests/support/broker_process.h"
#include "tests/support/raw_client.h"

using namespace skiff;
using namespace std::chrono_literals;

namespace {

long rss_kb(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

protocol::CreateTopicsResponse create_topic(test::RawClient& c, const std::string& name, int32_t partitions) {
  protocol::CreateTopicsRequest req;
  req.topics.emplace_back();
  req.topics[0].name = name;
  req.topics[0].num_partitions = partitions;
  req.topics[0].replication_factor = 1;
  req.timeout_ms = 30000;
  protocol::RequestHeader h;
  h.correlation_id = 11;
  h.client_id = "hostile-test";
  auto frame = protocol::encode_request_frame(h, 7, req);
  REQUIRE(c.send_raw(frame.data(), frame.size()));
  auto body = c.read_frame();
  REQUIRE(body);
  protocol::ByteReader r(*body);
  protocol::ResponseHeader rh;
  rh.decode(r, protocol::response_header_version(protocol::CreateTopicsResponse::kApiKey, 7));
  REQUIRE(rh.correlation_id == 11);
  protocol::CreateTopicsResponse resp;
  resp.decode(r, 7);
  REQUIRE(resp.topics.size() == 1);
  return resp;
}

int dirs_of(const std::filesystem::path& data, const std::string& topic) {
  int n = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(data))
    if (e.is_directory() && e.path().filename().string().rfind(topic + "-", 0) == 0) ++n;
  return n;
}

}  // namespace

TEST_CASE("a CreateTopics of 1,000,000 partitions is refused at once, leaving nothing", "[hostile][limits]") {
  test::BrokerProcess broker;
  test::RawClient c("127.0.0.1", broker.port());
  REQUIRE(create_topic(c, "warmup", 4).topics[0].error_code == 0);
  const long before = rss_kb(broker.pid());
  for (int i = 0; i < 5; ++i) {
    auto started = std::chrono::steady_clock::now();
    auto r = create_topic(c, "huge", 1000000);
    CHECK(std::chrono::steady_clock::now() - started < 2s);
    CHECK(r.topics[0].error_code == 44);  // POLICY_VIOLATION, as Kafka 4.4
    CHECK(r.topics[0].error_message == "Excessively large number of partitions per request.");
  }
  const long after = rss_kb(broker.pid());
  INFO("RSS before " << before << " kB, after five refused requests " << after << " kB");
  CHECK(after - before < 4096);
  CHECK(dirs_of(broker.data_dir(), "huge") == 0);
}

TEST_CASE("a client id with a newline and terminal escapes is logged as one escaped line", "[hostile][escape]") {
  test::BrokerProcess broker;
  test::RawClient c("127.0.0.1", broker.port());
  const std::string client_id = "evil\n[fake] ERROR forged\x1b[31m";
  // An API key Skiff does not serve: the broker logs the client and closes.
  std::vector<uint8_t> body = {0x27, 0x0f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05};  // key 9999 v0, corr 5
  body.push_back(static_cast<uint8_t>(client_id.size() >> 8));
  body.push_back(static_cast<uint8_t>(client_id.size()));
  body.insert(body.end(), client_id.begin(), client_id.end());
  REQUIRE(c.send_frame(body));
  CHECK(c.wait_closed());
  std::string out;
  for (int i = 0; i < 50 && out.find("forged") == std::string::npos; ++i) {
    std::this_thread::sleep_for(100ms);
    out = broker.output();
  }
  int lines_with_forged = 0;
  std::string line;
  for (size_t pos = 0, nl; pos < out.size(); pos = nl + 1) {
    nl = out.find('\n', pos);
    if (nl == std::string::npos) nl = out.size();
    std::string l = out.substr(pos, nl - pos);
    if (l.find("forged") != std::string::npos) ++lines_with_forged, line = l;
  }
  CHECK(lines_with_forged == 1);
  CHECK(line.find("evil\\n[fake] ERROR forged\\x1b[31m") != std::string::npos);
  CHECK(out.find('\x1b') == std::string::npos);
}
