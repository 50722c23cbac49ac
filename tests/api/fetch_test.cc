// Fetch: whole batches (also from inside a batch), size limits (KIP-74),
// out-of-range offsets, topic ids (v13+), and long-polling that an append
// or the timer completes without holding a handler thread; a partition that
// retention emptied.
#include "api/purgatory.h"
#include "api/topics.h"
#include "common/wall_clock.h"
#include "log/batch_builder.h"
#include "protocol/generated/fetch_request.h"
#include "protocol/generated/fetch_response.h"
#include "protocol/generated/produce_request.h"
#include "protocol/generated/produce_response.h"
#include "tests/api/api_harness.h"
#include "tests/api/handler_calls.h"

using namespace skiff;
using protocol::FetchRequest;
using protocol::FetchResponse;

namespace {

// Appends batches of `sizes[i]` records straight to the log; returns their bytes.
std::vector<std::vector<uint8_t>> seed(test::ApiHarness& h, const std::string& topic, const std::vector<int>& sizes,
                                       size_t value_size = 20) {
  REQUIRE(outcome(h.logs().create_topic(topic, 1)) == storage::LogErrc::kNone);
  auto log = h.logs().get_log(topic, 0);
  std::vector<std::vector<uint8_t>> out;
  for (int n : sizes) {
    auto b = storage::make_test_batch(n, value_size, wall_clock_ms(), out.size());
    REQUIRE(log->append(b).has_value());  // rewrites b's base offset in place
    out.push_back(b);
  }
  return out;
}

FetchRequest fetch(const std::string& topic, int64_t offset, int32_t partition_max = 1 << 20, int32_t max_wait = 0,
                   int32_t min_bytes = 1) {
  return test::fetch_request(topic, offset, {partition_max, max_wait, min_bytes});
}

const FetchResponse::PartitionData& only(const FetchResponse& r) { return test::only_partition(r); }

std::vector<uint8_t> concat(const std::vector<std::vector<uint8_t>>& parts, size_t from, size_t to) {
  std::vector<uint8_t> out;
  for (size_t i = from; i < to; ++i) out.insert(out.end(), parts[i].begin(), parts[i].end());
  return out;
}

std::vector<uint8_t> records_of(const FetchResponse::PartitionData& p) {
  auto d = p.records.data();
  return {d.begin(), d.end()};
}

}  // namespace

TEST_CASE("fetch returns whole batches byte for byte, from inside a batch too", "[api][fetch]") {
  test::ApiHarness h;
  auto batches = seed(h, "t", {5, 5, 5});  // offsets 0-4, 5-9, 10-14
  for (int16_t v : {4, 11, 12}) {
    auto r = only(h.call<FetchResponse>(fetch("t", 0), v));
    CHECK(r.error_code == 0);
    CHECK(r.high_watermark == 15);
    CHECK(r.last_stable_offset == 15);
    CHECK(records_of(r) == concat(batches, 0, 3));
    // Offset 7 sits inside the second batch: the whole batch comes back.
    CHECK(records_of(only(h.call<FetchResponse>(fetch("t", 7), v))) == concat(batches, 1, 3));
  }
  // At the end of the log: no records, no error.
  auto end = only(h.call<FetchResponse>(fetch("t", 15), 12));
  CHECK(end.error_code == 0);
  CHECK(end.records.size() == 0);
}

TEST_CASE("fetch limits: the first batch whole even when larger (KIP-74)", "[api][fetch]") {
  test::ApiHarness h;
  auto batches = seed(h, "t", {10, 10, 10}, 100);
  auto r = only(h.call<FetchResponse>(fetch("t", 0, /*partition_max=*/10), 12));
  CHECK(records_of(r) == concat(batches, 0, 1));
  auto two = only(h.call<FetchResponse>(fetch("t", 0, static_cast<int32_t>(batches[0].size() * 2)), 12));
  CHECK(records_of(two) == concat(batches, 0, 2));
}

TEST_CASE("fetch out of range and unknown partitions", "[api][fetch]") {
  test::ApiHarness h;
  seed(h, "t", {3});
  CHECK(only(h.call<FetchResponse>(fetch("t", 4), 12)).error_code == 1);
  CHECK(only(h.call<FetchResponse>(fetch("t", -1), 12)).error_code == 1);
  CHECK(only(h.call<FetchResponse>(fetch("nope", 0), 12)).error_code == 3);
  REQUIRE(outcome(h.logs().get_log("t", 0)->maybe_increment_log_start_offset(storage::Offset(2))) ==
          storage::LogErrc::kNone);
  auto below = only(h.call<FetchResponse>(fetch("t", 1), 12));
  CHECK(below.error_code == 1);
  CHECK(below.log_start_offset == 2);
}

TEST_CASE("fetch v13+ names topics by id", "[api][fetch]") {
  test::ApiHarness h;
  auto batches = seed(h, "t", {4});
  for (int16_t v : {13, 17, 18}) {
    INFO("v" << v);
    auto req = fetch("", 0);
    req.topics[0].topic_id = h.logs().topic("t")->topic_id;
    // v18's HighWatermark (KIP-1166) is a follower's: Kafka 4.4 does not read
    // it for partition data, so one below ours changes nothing.
    if (v >= 18) req.topics[0].partitions[0].high_watermark = 0;
    auto resp = h.call<FetchResponse>(req, v);
    CHECK(resp.responses[0].topic_id == req.topics[0].topic_id);
    CHECK(records_of(only(resp)) == batches[0]);
    CHECK(only(resp).high_watermark == 4);
    req.topics[0].topic_id.bytes[0] ^= 0x55;
    CHECK(only(h.call<FetchResponse>(req, v)).error_code == 100);  // UNKNOWN_TOPIC_ID
  }
}

TEST_CASE("a fetch session id we never gave out: FETCH_SESSION_ID_NOT_FOUND", "[api][fetch]") {
  test::ApiHarness h;
  seed(h, "t", {1});
  auto req = fetch("t", 0);
  req.session_id = 1234;
  req.session_epoch = 1;
  auto resp = h.call<FetchResponse>(req, 12);
  CHECK(resp.error_code == 70);
  auto fresh = h.call<FetchResponse>(fetch("t", 0), 12);
  CHECK(fresh.session_id == 0);  // sessionless
}

TEST_CASE("long poll: an append completes a waiting fetch", "[api][fetch][delayed]") {
  test::ApiHarness h;
  seed(h, "t", {2});
  auto started = std::chrono::steady_clock::now();
  h.start(fetch("t", 2, 1 << 20, /*max_wait=*/10000), 12);
  CHECK_FALSE(h.wait(std::chrono::milliseconds(100)).has_value());  // parked, not answered

  protocol::ProduceRequest produce;
  produce.acks = 1;
  protocol::ProduceRequest::TopicProduceData td;
  td.name = "t";
  protocol::ProduceRequest::PartitionProduceData pd;
  auto batch = storage::make_test_batch(3, 10, wall_clock_ms());
  pd.records = protocol::Records::bytes(batch);
  td.partition_data.push_back(pd);
  produce.topic_data.push_back(td);
  h.start(produce, 9);

  // Two responses: the produce's and the fetch's, in either order.
  int fetched = 0;
  for (int i = 0; i < 2; ++i) {
    auto r = h.wait(std::chrono::seconds(5));
    REQUIRE(r.has_value());
    auto bytes = test::flatten(*r);
    if (bytes.size() > 100) ++fetched;  // the fetch carries the batch
  }
  CHECK(fetched == 1);
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(5));
}

TEST_CASE("long poll: the timer answers with what there is", "[api][fetch][delayed]") {
  test::ApiHarness h;
  seed(h, "t", {2});
  auto started = std::chrono::steady_clock::now();
  h.start(fetch("t", 2, 1 << 20, /*max_wait=*/300), 12);
  auto r = h.wait(std::chrono::seconds(5));
  REQUIRE(r.has_value());
  auto elapsed = std::chrono::steady_clock::now() - started;
  CHECK(elapsed >= std::chrono::milliseconds(250));
  auto resp = h.decode<FetchResponse>(*r, 12);
  CHECK(only(resp).records.size() == 0);
  CHECK(only(resp).high_watermark == 2);
}

TEST_CASE("shutdown answers waiting fetches at once", "[api][fetch][delayed]") {
  test::ApiHarness h;
  seed(h, "t", {1});
  h.start(fetch("t", 1, 1 << 20, /*max_wait=*/60000), 12);
  CHECK_FALSE(h.wait(std::chrono::milliseconds(50)).has_value());
  h.components().complete_delayed();
  CHECK(h.wait(std::chrono::seconds(2)).has_value());
}

namespace {

class FlagOp : public api::DelayedOperation {
 public:
  std::atomic<bool> ready_flag{false};
  std::atomic<int> completions{0};

 protected:
  bool ready() override { return ready_flag.load(); }
  void complete() override { ++completions; }
};

}  // namespace

TEST_CASE("purgatory: events wake only their key's watchers, nothing watched, nothing to do", "[api][delayed]") {
  api::Purgatory p;
  CHECK_FALSE(p.has_watchers());
  auto a = std::make_shared<FlagOp>();
  auto b = std::make_shared<FlagOp>();
  p.add(a, {api::partition_key("t", 0), api::partition_key("u", 3)}, std::chrono::seconds(30));
  p.add(b, {api::partition_key("t", 1)}, std::chrono::seconds(30));
  CHECK(p.has_watchers());
  CHECK(p.watched() == 3);
  a->ready_flag = true;
  b->ready_flag = true;
  p.on_event(api::partition_key("u", 3));  // a's second key
  CHECK(a->completions == 1);
  CHECK(b->completions == 0);
  CHECK(p.watched() == 1);                 // both of a's watches are gone
  p.on_event(api::partition_key("t", 0));  // nobody left on it
  CHECK(a->completions == 1);
  p.on_event(api::partition_key("t", 1));
  CHECK(b->completions == 1);
  CHECK(p.watched() == 0);
  CHECK_FALSE(p.has_watchers());
}

// Retention emptied an idle partition (its active segment too): Fetch at the
// end answers no records with high watermark = log start = end, below it
// OFFSET_OUT_OF_RANGE, and new appends are served from there.
TEST_CASE("fetch from a partition that retention emptied", "[api][fetch][retention]") {
  test::ApiHarness h;
  seed(h, "idle", {3, 2});
  auto log = h.logs().get_log("idle", 0);
  REQUIRE(h.logs().alter_topic_config("idle", {{"retention.ms", "1000"}}));
  REQUIRE(log->delete_old_segments(wall_clock_ms() + 5000) == 1);
  auto empty = only(h.call<FetchResponse>(fetch("idle", 5), 12));
  CHECK(empty.error_code == 0);
  CHECK(empty.high_watermark == 5);
  CHECK(empty.log_start_offset == 5);
  CHECK(records_of(empty).empty());
  CHECK(only(h.call<FetchResponse>(fetch("idle", 0), 12)).error_code == 1);
  auto b = storage::make_test_batch(1, 20, wall_clock_ms());
  REQUIRE(log->append(b).has_value());
  auto after = only(h.call<FetchResponse>(fetch("idle", 5), 12));
  CHECK(after.high_watermark == 6);
  CHECK(records_of(after) == b);
}
