// skiff_first_produce: how soon after exec a broker acknowledges a produce.
// Started before the broker; prints {"ready":true}, then every millisecond
// tries to connect, asks Metadata for the topic (auto-creating it, as a
// client's first Metadata does on Kafka) and sends one acks=1 Produce; on the
// first answer without error it prints the CLOCK_REALTIME of the
// acknowledgement. A raw client rather than librdkafka, whose reconnect timer
// ticks once a second and would hide a millisecond start.
// Not a test: run by bench/vs_kafka.py.
//
//   skiff_first_produce HOST PORT TOPIC [timeout_s=120]
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <thread>

#include "log/batch_builder.h"
#include "protocol/frame.h"
#include "protocol/generated/metadata_request.h"
#include "protocol/generated/metadata_response.h"
#include "protocol/generated/produce_request.h"
#include "protocol/generated/produce_response.h"
#include "tests/support/raw_client.h"

using namespace skiff;

namespace {

constexpr int16_t kMetadataVersion = 9;
constexpr int16_t kProduceVersion = 9;

int64_t realtime_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

bool send(test::RawClient& c, const std::vector<uint8_t>& frame) { return c.send_raw(frame.data(), frame.size()); }

template <class Resp>
bool read_response(test::RawClient& c, int16_t version, Resp& out) {
  auto frame = c.read_frame();
  if (!frame) return false;
  protocol::ByteReader r(*frame);
  protocol::ResponseHeader h;
  h.decode(r, protocol::response_header_version(Resp::kApiKey, version));
  out.decode(r, version);
  return true;
}

enum class Outcome { kAcked, kRefused, kIoError };

// One Metadata + Produce exchange.
Outcome try_produce(test::RawClient& c, const std::string& topic, int32_t& correlation) {
  protocol::RequestHeader h;
  h.client_id = "skiff-first-produce";
  h.correlation_id = ++correlation;
  protocol::MetadataRequest md;
  protocol::MetadataRequest::MetadataRequestTopic t;
  t.name = topic;
  md.topics = std::vector{t};
  md.allow_auto_topic_creation = true;
  protocol::MetadataResponse mdr;
  if (!send(c, protocol::encode_request_frame(h, kMetadataVersion, md)) || !read_response(c, kMetadataVersion, mdr))
    return Outcome::kIoError;

  auto batch = storage::make_test_batch(1, 100, std::time(nullptr) * 1000);
  protocol::ProduceRequest pr;
  pr.acks = 1;
  pr.timeout_ms = 30000;
  protocol::ProduceRequest::TopicProduceData td;
  td.name = topic;
  protocol::ProduceRequest::PartitionProduceData pd;
  pd.index = 0;
  pd.records = protocol::Records::bytes(batch);
  td.partition_data.push_back(pd);
  pr.topic_data.push_back(td);
  h.correlation_id = ++correlation;
  protocol::ProduceResponse resp;
  if (!send(c, protocol::encode_request_frame(h, kProduceVersion, pr)) || !read_response(c, kProduceVersion, resp))
    return Outcome::kIoError;
  const bool ok = resp.responses.size() == 1 && resp.responses[0].partition_responses.size() == 1 &&
                  resp.responses[0].partition_responses[0].error_code == 0;
  return ok ? Outcome::kAcked : Outcome::kRefused;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s HOST PORT TOPIC [timeout_s]\n", argv[0]);
    return 2;
  }
  const std::string host = argv[1];
  const auto port = static_cast<uint16_t>(std::atoi(argv[2]));
  const std::string topic = argv[3];
  const double timeout_s = argc > 4 ? std::atof(argv[4]) : 120;
  std::printf("{\"ready\":true}\n");
  std::fflush(stdout);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  int32_t correlation = 0;
  test::RawClient conn;
  while (std::chrono::steady_clock::now() < deadline) {
    if (!conn.connected()) conn = test::RawClient(host, port, 10000);
    if (conn.connected()) {
      try {
        const Outcome o = try_produce(conn, topic, correlation);
        if (o == Outcome::kIoError) conn.close();
        if (o == Outcome::kAcked) {
          std::printf("{\"mode\":\"first-produce\",\"acked\":true,\"ack_unix_ns\":%" PRId64 "}\n", realtime_ns());
          return 0;
        }
      } catch (const std::exception& e) {
        std::fprintf(stderr, "skiff_first_produce: %s\n", e.what());
        conn.close();
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::printf("{\"mode\":\"first-produce\",\"acked\":false,\"ack_unix_ns\":0}\n");
  return 1;
}
