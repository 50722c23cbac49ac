// Fetch and ListOffsets over a tiered log (tiered storage, KIP-405), with a
// scripted RemoteReads port in place of the remote log reader: offsets below
// the local log start go to the port (never to a handler thread's wait);
// its bytes, errors and aborted transactions reach the response; a read not
// done by remote.fetch.max.wait.ms answers no records and no error; a full
// reader queue answers KAFKA_STORAGE_ERROR; ListOffsets' -4/-5/-6 and
// timestamp lookups ask remote storage first, local segments after.
#include <thread>

#include "api/remote_reads.h"
#include "common/wall_clock.h"
#include "log/batch_builder.h"
#include "protocol/generated/fetch_request.h"
#include "protocol/generated/fetch_response.h"
#include "protocol/generated/list_offsets_request.h"
#include "protocol/generated/list_offsets_response.h"
#include "tests/api/api_harness.h"
#include "tests/api/handler_calls.h"

using namespace skiff;
using protocol::FetchRequest;
using protocol::FetchResponse;
using protocol::ListOffsetsRequest;
using protocol::ListOffsetsResponse;

namespace {

// Answers what the test scripts, on a thread of its own (as the reader pool would).
class ScriptedRemoteReads : public api::RemoteReads {
 public:
  enum class Mode { kAnswer, kNever, kRefuse };
  ~ScriptedRemoteReads() override {
    for (auto& t : threads_) t.join();
  }
  bool read(api::RemoteReadRequest request, std::function<void(api::RemoteReadResult)> done) override {
    std::lock_guard lock(mu_);
    reads.push_back(request);
    if (mode == Mode::kRefuse) return false;
    if (mode == Mode::kAnswer)
      threads_.emplace_back([done, r = result] { done(r); });
    else
      parked_reads_.push_back(std::move(done));  // never answered in time
    return true;
  }
  bool offset_for_timestamp(api::RemotePartition partition, int64_t ts, int64_t start,
                            std::function<void(api::RemoteOffsetResult)> done) override {
    std::lock_guard lock(mu_);
    lookups.push_back({partition.topic, ts, start});
    if (mode == Mode::kRefuse) return false;
    if (mode == Mode::kAnswer)
      threads_.emplace_back([done, r = offset_result] { done(r); });
    else
      parked_lookups_.push_back(std::move(done));
    return true;
  }
  std::chrono::milliseconds fetch_max_wait() const override { return std::chrono::milliseconds(100); }
  std::chrono::milliseconds list_offsets_timeout() const override { return std::chrono::milliseconds(100); }

  Mode mode = Mode::kAnswer;
  api::RemoteReadResult result;
  api::RemoteOffsetResult offset_result;
  std::vector<api::RemoteReadRequest> reads;
  struct Lookup {
    std::string topic;
    int64_t timestamp, start;
  };
  std::vector<Lookup> lookups;

 private:
  std::mutex mu_;
  std::vector<std::thread> threads_;
  std::vector<std::function<void(api::RemoteReadResult)>> parked_reads_;
  std::vector<std::function<void(api::RemoteOffsetResult)>> parked_lookups_;
};

// Topic "t": batches of 2 records at 0, 2, 4 (timestamps 1000, 2000, 3000),
// each in its own segment; 0-3 "uploaded" and gone from the local disk.
struct TieredTopic {
  explicit TieredTopic(test::ApiHarness& h) {
    REQUIRE(outcome(h.logs().create_topic("t", 1)) == storage::LogErrc::kNone);
    log = h.logs().get_log("t", 0);
    auto cfg = std::make_shared<storage::LogConfig>(*log->config());
    cfg->remote_storage_enable = true;
    cfg->retention_ms = -1;
    cfg->local_retention_ms = 1;
    log->set_config(cfg);
    const int64_t now = wall_clock_ms();
    for (int i = 0; i < 3; ++i) {
      auto b = storage::make_test_batch(2, 50, int64_t{1000} * (i + 1), i);
      REQUIRE(log->append(b).has_value());
      batches.push_back(b);
      REQUIRE(log->roll(now).has_value());
    }
    REQUIRE(log->flush().has_value());
    REQUIRE(log->update_highest_offset_in_remote(3));
    log->delete_old_segments(now + 60000);
    REQUIRE(log->local_log_start_offset().value == 4);
    REQUIRE(log->log_start_offset().value == 0);
  }
  std::shared_ptr<storage::Log> log;
  std::vector<std::vector<uint8_t>> batches;
};

FetchRequest fetch_at(int64_t offset, int isolation = 0) {
  test::FetchOf f;
  f.max_wait = 500;
  f.max_bytes = 1 << 20;
  f.isolation = static_cast<int8_t>(isolation);
  return test::fetch_request("t", offset, f);
}

std::string text(const std::vector<uint8_t>& b) { return {b.begin(), b.end()}; }

ListOffsetsResponse::ListOffsetsPartitionResponse list(test::ApiHarness& h, int64_t timestamp, int isolation = 0) {
  ListOffsetsRequest req;
  req.replica_id = -1;
  req.isolation_level = static_cast<int8_t>(isolation);
  ListOffsetsRequest::ListOffsetsTopic t;
  t.name = "t";
  ListOffsetsRequest::ListOffsetsPartition p;
  p.timestamp = timestamp;
  t.partitions.push_back(p);
  req.topics.push_back(t);
  auto resp = h.call<ListOffsetsResponse>(req, 11);
  REQUIRE(resp.topics.size() == 1);
  REQUIRE(resp.topics[0].partitions.size() == 1);
  return resp.topics[0].partitions[0];
}

}  // namespace

TEST_CASE("a fetch below the local log start reads remote storage through the port", "[api][fetch][tiered]") {
  test::ApiHarness h;
  TieredTopic topic(h);
  ScriptedRemoteReads remote;
  h.components().services().remote_reads = &remote;
  remote.result.records = text(topic.batches[0]);
  remote.result.next_offset = 2;

  auto r = test::only_partition(h.call<FetchResponse>(fetch_at(1), 12));
  CHECK(r.error_code == 0);
  CHECK(text({r.records.data().begin(), r.records.data().end()}) == text(topic.batches[0]));
  CHECK(r.log_start_offset == 0);
  CHECK(r.high_watermark == 6);
  REQUIRE(remote.reads.size() == 1);
  CHECK(remote.reads[0].fetch_offset == 1);
  CHECK(remote.reads[0].partition.topic == "t");
  CHECK(remote.reads[0].partition.topic_id == h.logs().topic("t")->topic_id);
  CHECK_FALSE(remote.reads[0].read_committed);

  // At the local start: the local segment, the port not asked.
  auto local = test::only_partition(h.call<FetchResponse>(fetch_at(4), 12));
  CHECK(text({local.records.data().begin(), local.records.data().end()}) == text(topic.batches[2]));
  CHECK(remote.reads.size() == 1);
}

TEST_CASE("remote fetch errors, a full reader queue and a read not done in time", "[api][fetch][tiered]") {
  test::ApiHarness h;
  TieredTopic topic(h);
  ScriptedRemoteReads remote;
  h.components().services().remote_reads = &remote;

  remote.result.error = ErrorCode::kKafkaStorageError;
  CHECK(test::only_partition(h.call<FetchResponse>(fetch_at(0), 12)).error_code == 56);

  remote.mode = ScriptedRemoteReads::Mode::kRefuse;
  CHECK(test::only_partition(h.call<FetchResponse>(fetch_at(0), 12)).error_code == 56);

  remote.mode = ScriptedRemoteReads::Mode::kNever;  // answered at remote.fetch.max.wait.ms (100 ms here)
  const auto started = std::chrono::steady_clock::now();
  auto r = test::only_partition(h.call<FetchResponse>(fetch_at(0), 12));
  CHECK(std::chrono::steady_clock::now() - started >= std::chrono::milliseconds(90));
  CHECK(r.error_code == 0);
  CHECK(r.records.size() == 0);
  CHECK(r.high_watermark == 6);
}

TEST_CASE("read_committed remote fetches carry the remote aborted transactions", "[api][fetch][tiered]") {
  test::ApiHarness h;
  TieredTopic topic(h);
  ScriptedRemoteReads remote;
  h.components().services().remote_reads = &remote;
  remote.result.records = text(topic.batches[1]);
  remote.result.aborted = {storage::AbortedTxn{7, 2, 3, 4}};
  remote.result.next_offset = 4;

  auto r = test::only_partition(h.call<FetchResponse>(fetch_at(2, 1), 12));
  CHECK(r.error_code == 0);
  REQUIRE(r.aborted_transactions);
  REQUIRE(r.aborted_transactions->size() == 1);
  CHECK((*r.aborted_transactions)[0].producer_id == 7);
  CHECK((*r.aborted_transactions)[0].first_offset == 2);
  REQUIRE(remote.reads.size() == 1);
  CHECK(remote.reads[0].read_committed);
}

TEST_CASE("ListOffsets' tiered specials answer as Kafka 4.4's UnifiedLog", "[api][list_offsets][tiered]") {
  test::ApiHarness h;
  TieredTopic topic(h);
  CHECK(list(h, -2).offset == 0);  // the log start, remote data included
  CHECK(list(h, -4).offset == 4);  // the local start
  CHECK(list(h, -5).offset == 3);  // the highest offset in remote storage
  CHECK(list(h, -6).offset == 4);  // the first not yet uploaded
  CHECK(list(h, -1).offset == 6);

  // A topic without remote storage: -5 and -6 are -1 with epoch -1, -4 the log start.
  REQUIRE(outcome(h.logs().create_topic("plain", 1)) == storage::LogErrc::kNone);
  ListOffsetsRequest req;
  req.replica_id = -1;
  ListOffsetsRequest::ListOffsetsTopic t;
  t.name = "plain";
  for (int64_t ts : {-4, -5, -6}) {
    ListOffsetsRequest::ListOffsetsPartition p;
    p.timestamp = ts;
    t.partitions.push_back(p);
  }
  req.topics.push_back(t);
  auto resp = h.call<ListOffsetsResponse>(req, 11);
  CHECK(resp.topics[0].partitions[0].offset == 0);
  CHECK(resp.topics[0].partitions[1].offset == -1);
  CHECK(resp.topics[0].partitions[1].leader_epoch == -1);
  CHECK(resp.topics[0].partitions[2].offset == -1);
}

TEST_CASE("ListOffsets by timestamp asks remote storage first, then the local segments",
          "[api][list_offsets][tiered]") {
  test::ApiHarness h;
  TieredTopic topic(h);
  ScriptedRemoteReads remote;
  h.components().services().remote_reads = &remote;

  remote.offset_result.timestamp_and_offset = std::make_pair(int64_t{2000}, int64_t{2});
  auto found = list(h, 1500);
  CHECK(found.error_code == 0);
  CHECK(found.offset == 2);
  CHECK(found.timestamp == 2000);
  REQUIRE(remote.lookups.size() == 1);
  CHECK(remote.lookups[0].timestamp == 1500);
  CHECK(remote.lookups[0].start == 0);

  remote.offset_result.timestamp_and_offset.reset();  // not in remote storage: the local segments
  auto local = list(h, 2500);
  CHECK(local.offset == 4);
  CHECK(local.timestamp == 3000);

  remote.offset_result.error = ErrorCode::kKafkaStorageError;
  CHECK(list(h, 1500).error_code == 56);

  remote.mode = ScriptedRemoteReads::Mode::kNever;
  auto late = list(h, 1500);
  CHECK(late.error_code == 7);  // REQUEST_TIMED_OUT at remote.list.offsets.request.timeout.ms
  CHECK(late.offset == -1);
}
