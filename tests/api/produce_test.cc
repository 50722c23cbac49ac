// Produce: offsets assigned, every per-partition error code, acks=0, the
// versions advertised but not served.
#include "common/wall_clock.h"
#include "log/batch_builder.h"
#include "log/crc32c.h"
#include "protocol/generated/produce_request.h"
#include "protocol/generated/produce_response.h"
#include "tests/api/api_harness.h"
#include "tests/api/handler_calls.h"

using namespace skiff;
using protocol::ProduceRequest;
using protocol::ProduceResponse;

namespace {

ProduceRequest produce(const std::string& topic, int32_t partition, const std::vector<uint8_t>& records,
                       int16_t acks = -1) {
  ProduceRequest req;
  req.acks = acks;
  req.timeout_ms = 1000;
  ProduceRequest::TopicProduceData t;
  t.name = topic;
  ProduceRequest::PartitionProduceData p;
  p.index = partition;
  p.records = protocol::Records::bytes(records);
  t.partition_data.push_back(p);
  req.topic_data.push_back(t);
  return req;
}

}  // namespace

TEST_CASE("produce assigns consecutive offsets and auto-creates the topic", "[api][produce]") {
  test::ApiHarness h;
  for (int16_t v : {3, 7, 9, 11}) {
    auto batch = storage::make_test_batch(5, 10, wall_clock_ms());
    auto r = test::only_partition(h.call<ProduceResponse>(produce("orders", 0, batch), v));
    CHECK(r.error_code == 0);
    CHECK(r.base_offset >= 0);
    CHECK(r.base_offset % 5 == 0);
  }
  REQUIRE(h.logs().get_log("orders", 0));
  CHECK(h.logs().get_log("orders", 0)->log_end_offset().value == 20);
}

TEST_CASE("produce error codes per partition", "[api][produce]") {
  test::ApiHarness h({"message.max.bytes=2000"});
  auto good = storage::make_test_batch(3, 10, wall_clock_ms());
  REQUIRE(test::only_partition(h.call<ProduceResponse>(produce("t", 0, good), 9)).error_code == 0);

  SECTION("bad CRC: CORRUPT_MESSAGE") {
    auto bad = good;
    bad.back() ^= 0xff;
    CHECK(test::only_partition(h.call<ProduceResponse>(produce("t", 0, bad), 9)).error_code == 2);
  }
  SECTION("a partition that does not exist: UNKNOWN_TOPIC_OR_PARTITION") {
    CHECK(test::only_partition(h.call<ProduceResponse>(produce("t", 5, good), 9)).error_code == 3);
  }
  SECTION("magic 1: UNSUPPORTED_FOR_MESSAGE_FORMAT") {
    auto old = good;
    old[16] = 1;
    CHECK(test::only_partition(h.call<ProduceResponse>(produce("t", 0, old), 9)).error_code == 43);
  }
  SECTION("larger than message.max.bytes: MESSAGE_TOO_LARGE") {
    auto big = storage::make_test_batch(1, 5000, wall_clock_ms());
    CHECK(test::only_partition(h.call<ProduceResponse>(produce("t", 0, big), 9)).error_code == 10);
  }
  SECTION("an illegal topic name: INVALID_TOPIC_EXCEPTION") {
    CHECK(test::only_partition(h.call<ProduceResponse>(produce("bad/name", 0, good), 9)).error_code == 17);
  }
  SECTION("invalid acks: INVALID_REQUIRED_ACKS") {
    CHECK(test::only_partition(h.call<ProduceResponse>(produce("t", 0, good, 2), 9)).error_code == 21);
  }
  SECTION("a transactional batch gets a clear error") {
    auto txn = storage::BatchBuilder().producer(1, 0, 0).transactional(true).add("k", "v", wall_clock_ms()).build();
    auto r = test::only_partition(h.call<ProduceResponse>(produce("t", 0, txn), 9));
    CHECK(r.error_code != 0);
    CHECK(r.error_message.value_or("").find("transactions") != std::string::npos);
  }
  SECTION("a truncated batch") {
    auto cut = good;
    cut.resize(cut.size() - 3);
    CHECK(test::only_partition(h.call<ProduceResponse>(produce("t", 0, cut), 9)).error_code != 0);
  }
  CHECK(h.logs().get_log("t", 0)->log_end_offset().value == 3);  // nothing bad was written
}

TEST_CASE("produce v0-2 is advertised but answered with UNSUPPORTED_VERSION", "[api][produce]") {
  test::ApiHarness h;
  ProduceRequest req = produce("t", 0, {});
  for (int16_t v : {0, 1, 2}) {
    req.topic_data[0].partition_data[0].records = protocol::Records::bytes({});
    CHECK(test::only_partition(h.call<ProduceResponse>(req, v)).error_code == 35);
  }
}

TEST_CASE("acks=0: no response on success, the connection closes on error", "[api][produce]") {
  test::ApiHarness h;
  auto good = storage::make_test_batch(2, 10, wall_clock_ms());
  CHECK(h.raw(h.frame(produce("t", 0, good, 0), 9)).action == network::Response::Action::kNoOp);
  auto bad = good;
  bad.back() ^= 1;
  CHECK(h.raw(h.frame(produce("t", 0, bad, 0), 9)).action == network::Response::Action::kClose);
  CHECK(h.logs().get_log("t", 0)->log_end_offset().value == 2);
}

TEST_CASE("LogAppendTime topics stamp the broker's time", "[api][produce]") {
  test::ApiHarness h({"log.message.timestamp.type=LogAppendTime"});
  auto before = wall_clock_ms();
  auto r = test::only_partition(h.call<ProduceResponse>(produce("t", 0, storage::make_test_batch(2, 10, 1000)), 9));
  CHECK(r.error_code == 0);
  CHECK(r.log_append_time_ms >= before);
}

TEST_CASE("zstd before Produce v7 is UNSUPPORTED_COMPRESSION_TYPE, as Kafka answers", "[api][produce]") {
  test::ApiHarness h;
  auto batch = storage::make_test_batch(2, 10, wall_clock_ms());
  // Mark the batch zstd (attributes at byte 21, codec in the low 3 bits) and
  // re-seal its CRC-32C (over attributes to the end). The broker stores
  // compressed batches as they come, so v7 takes the same bytes.
  batch[22] = static_cast<uint8_t>((batch[22] & ~0x07) | 4);
  uint32_t crc = storage::crc32c(batch.data() + 21, batch.size() - 21);
  for (int i = 0; i < 4; ++i) batch[17 + i] = static_cast<uint8_t>(crc >> (24 - 8 * i));
  for (int16_t v = 3; v <= 6; ++v) {
    auto r = h.call<ProduceResponse>(produce("z", 0, batch), v);
    CHECK(test::only_partition(r).error_code == 76);
    CHECK(test::only_partition(r).base_offset == -1);
  }
  auto r = h.call<ProduceResponse>(produce("z", 0, batch), 7);
  CHECK(test::only_partition(r).error_code == 0);
  CHECK(test::only_partition(r).base_offset == 0);
}
