// The idempotent producer over the wire (raw Produce/InitProducerId frames
// through KafkaApis): a resent batch gets its first offset and is stored
// once; a sequence gap and a fenced epoch get their errors; producer ids are
// never reused across a restart; a transactional.id goes to the coordinator.
#include "common/wall_clock.h"
#include "log/batch_builder.h"
#include "protocol/generated/describe_producers_request.h"
#include "protocol/generated/describe_producers_response.h"
#include "protocol/generated/init_producer_id_request.h"
#include "protocol/generated/init_producer_id_response.h"
#include "protocol/generated/produce_request.h"
#include "protocol/generated/produce_response.h"
#include "tests/api/api_harness.h"

using namespace skiff;
using protocol::InitProducerIdRequest;
using protocol::InitProducerIdResponse;
using protocol::ProduceRequest;
using protocol::ProduceResponse;

namespace {

ProduceRequest produce(const std::string& topic, const std::vector<uint8_t>& records) {
  ProduceRequest req;
  req.acks = -1;
  req.timeout_ms = 1000;
  ProduceRequest::TopicProduceData t;
  t.name = topic;
  ProduceRequest::PartitionProduceData p;
  p.index = 0;
  p.records = protocol::Records::bytes(records);
  t.partition_data.push_back(p);
  req.topic_data.push_back(t);
  return req;
}

std::vector<uint8_t> batch(int64_t pid, int16_t epoch, int32_t seq, int n = 3) {
  storage::BatchBuilder b;
  b.producer(pid, epoch, seq);
  for (int i = 0; i < n; ++i) b.add("k", "v", wall_clock_ms());
  return b.build();
}

ProduceResponse::PartitionProduceResponse send(test::ApiHarness& h, const std::vector<uint8_t>& records) {
  auto r = h.call<ProduceResponse>(produce("idem", records), 9);
  REQUIRE(r.responses.size() == 1);
  return r.responses[0].partition_responses.at(0);
}

InitProducerIdResponse init(test::ApiHarness& h, int16_t version, int64_t pid = -1, int16_t epoch = -1,
                            std::optional<std::string> txn = std::nullopt) {
  InitProducerIdRequest req;
  req.transactional_id = txn;
  req.transaction_timeout_ms = 60000;
  req.producer_id = pid;
  req.producer_epoch = epoch;
  return h.call<InitProducerIdResponse>(req, version);
}

}  // namespace

TEST_CASE("a resent batch is answered with its first offset and stored once", "[api][idempotence]") {
  test::ApiHarness h;
  auto id = init(h, 4);
  REQUIRE(id.error_code == 0);
  REQUIRE(id.producer_id >= 0);
  CHECK(id.producer_epoch == 0);

  auto first = send(h, batch(id.producer_id, id.producer_epoch, 0));
  REQUIRE(first.error_code == 0);
  auto second = send(h, batch(id.producer_id, id.producer_epoch, 3));
  REQUIRE(second.error_code == 0);
  auto again = send(h, batch(id.producer_id, id.producer_epoch, 0));  // the client's retry
  CHECK(again.error_code == 0);
  CHECK(again.base_offset == first.base_offset);
  CHECK(h.logs().get_log("idem", 0)->log_end_offset().value == 6);

  SECTION("a gap: OUT_OF_ORDER_SEQUENCE_NUMBER, nothing stored") {
    auto gap = send(h, batch(id.producer_id, id.producer_epoch, 10));
    CHECK(gap.error_code == 45);
    CHECK(h.logs().get_log("idem", 0)->log_end_offset().value == 6);
  }
  SECTION("after an epoch bump the old epoch is fenced: INVALID_PRODUCER_EPOCH") {
    auto bumped = init(h, 4, id.producer_id, id.producer_epoch);
    REQUIRE(bumped.error_code == 0);
    CHECK(bumped.producer_id == id.producer_id);
    CHECK(bumped.producer_epoch == id.producer_epoch + 1);
    CHECK(send(h, batch(bumped.producer_id, bumped.producer_epoch, 0)).error_code == 0);
    CHECK(send(h, batch(id.producer_id, id.producer_epoch, 6)).error_code == 47);
    // InitProducerId with the stale epoch: PRODUCER_FENCED.
    CHECK(init(h, 4, id.producer_id, id.producer_epoch).error_code == 90);
  }
  SECTION("DescribeProducers shows the producer") {
    protocol::DescribeProducersRequest req;
    protocol::DescribeProducersRequest::TopicRequest t;
    t.name = "idem";
    t.partition_indexes = {0};
    req.topics.push_back(t);
    auto r = h.call<protocol::DescribeProducersResponse>(req, 0);
    REQUIRE(r.topics.at(0).partitions.at(0).active_producers.size() == 1);
    const auto& p = r.topics[0].partitions[0].active_producers[0];
    CHECK(p.producer_id == id.producer_id);
    CHECK(p.last_sequence == 5);
  }
}

TEST_CASE("producer ids and producer state survive a restart", "[api][idempotence]") {
  test::ApiHarness h;
  auto a = init(h, 0);
  auto b = init(h, 5);
  REQUIRE(a.error_code == 0);
  CHECK(b.producer_id > a.producer_id);
  auto first = send(h, batch(b.producer_id, 0, 0));
  REQUIRE(first.error_code == 0);
  h.restart();
  auto c = init(h, 5);
  REQUIRE(c.error_code == 0);
  CHECK(c.producer_id > b.producer_id);
  auto retry = send(h, batch(b.producer_id, 0, 0));  // deduplicated from the snapshot
  CHECK(retry.error_code == 0);
  CHECK(retry.base_offset == first.base_offset);
  CHECK(h.logs().get_log("idem", 0)->log_end_offset().value == 3);
}

TEST_CASE("InitProducerId with a transactional.id goes to the transaction coordinator", "[api][idempotence]") {
  test::ApiHarness h;
  auto r = init(h, 4, -1, -1, std::string("my-txn"));
  CHECK(r.error_code == 0);
  CHECK(r.producer_id >= 0);
  CHECK(r.producer_epoch == 0);
  auto idem = init(h, 4, -1, -1);  // one id space: never the transactional producer's id
  CHECK(idem.producer_id != r.producer_id);
  CHECK(init(h, 4, -1, -1, std::string("")).error_code == 42);  // INVALID_REQUEST, as Kafka (null = none)
}
