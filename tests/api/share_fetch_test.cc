// ShareFetch and ShareAcknowledge over a real log (the API harness), with the
// handlers called directly (not registered in KafkaApis yet) and the share
// partitions' state in a fake persister: sessions, acquisition with the
// records as a file region, acknowledgements, the purgatory wait woken by an
// append, the errors Kafka answers.
#include "api/handlers/share_acknowledge_handler.h"
#include "api/handlers/share_fetch_handler.h"
#include "api/purgatory.h"
#include "api/share_api.h"
#include "common/wall_clock.h"
#include "log/batch_builder.h"
#include "tests/api/api_harness.h"
#include "tests/share/share_fakes.h"

using namespace skiff;
using protocol::ShareAcknowledgeRequest;
using protocol::ShareAcknowledgeResponse;
using protocol::ShareFetchRequest;
using protocol::ShareFetchResponse;

namespace {

constexpr const char* kMember = "m1-0123456789";

struct ShareApiEnv {
  test::ApiHarness h;
  share::testing::FakePersister persister;
  share::testing::FakeConfig config;
  std::unique_ptr<share::SharePartitionManager> mgr;
  std::unique_ptr<api::ShareFetchHandler> fetch_handler;
  std::unique_ptr<api::ShareAcknowledgeHandler> ack_handler;
  test::CapturingSender sender;
  std::vector<std::vector<uint8_t>> batches;

  ShareApiEnv() {
    config.s.auto_offset_reset = share::AutoOffsetReset::kEarliest;
    share::SharePartitionManager::Ports p;
    p.now_ms = [] { return wall_clock_ms(); };
    p.schedule = [](int64_t, const std::function<void()>&) {};  // no lock expiry in these tests
    p.offset_for_timestamp = [this](const share::TopicIdPartition& tp, int64_t ts) -> int64_t {
      auto info = h.logs().topic_by_id(tp.topic_id);
      auto log = info ? h.logs().get_log(info->name, tp.partition) : nullptr;
      if (!log) return -1;
      return ts == -2 ? log->log_start_offset().value : log->log_end_offset().value;
    };
    p.on_acquirable = api::share_api::share_fetch_waker(h.components().services().fetch_purgatory);
    mgr = std::make_unique<share::SharePartitionManager>(persister, config, 10, std::move(p));
    fetch_handler = std::make_unique<api::ShareFetchHandler>(h.components().services(), *mgr);
    ack_handler = std::make_unique<api::ShareAcknowledgeHandler>(h.components().services(), *mgr);
  }

  Uuid create(const std::string& topic) {
    REQUIRE(outcome(h.logs().create_topic(topic, 1)) == storage::LogErrc::kNone);
    return h.logs().topic(topic)->topic_id;
  }
  void append(const std::string& topic, int records) {
    auto log = h.logs().get_log(topic, 0);
    auto b = storage::make_test_batch(records, 20, wall_clock_ms(), batches.size());
    REQUIRE(log->append(b).has_value());
    batches.push_back(b);
  }

  template <class Req>
  void start(api::ApiHandler& handler, const Req& body, int16_t version) {
    auto bytes = h.frame(body, version);
    api::ApiRequest req;
    req.raw.context.listener_name = "PLAINTEXT";
    req.raw.context.principal = "User:ANONYMOUS";
    req.raw.context.connection_id = 1;
    req.raw.frame = network::Frame(bytes.size());
    std::copy(bytes.begin(), bytes.end(), req.raw.frame.data());
    protocol::ByteReader reader(req.raw.frame.bytes());
    req.header.decode(reader, protocol::request_header_version(Req::kApiKey, version));
    req.body_offset = bytes.size() - reader.remaining();
    api::Responder out(sender, req.raw.context, req.correlation_id(), version);
    handler.handle(req, out);
  }
  ShareFetchResponse share_fetch(const ShareFetchRequest& body, int16_t version = 1) {
    start(*fetch_handler, body, version);
    auto r = sender.wait();
    REQUIRE(r);
    return h.decode<ShareFetchResponse>(*r, version);
  }
  ShareAcknowledgeResponse share_ack(const ShareAcknowledgeRequest& body, int16_t version = 1) {
    start(*ack_handler, body, version);
    auto r = sender.wait();
    REQUIRE(r);
    return h.decode<ShareAcknowledgeResponse>(*r, version);
  }
};

ShareFetchRequest fetch_req(Uuid topic, int32_t epoch, std::vector<ShareFetchRequest::AcknowledgementBatch> acks = {},
                            int32_t max_wait = 0) {
  ShareFetchRequest req;
  req.group_id = "sg";
  req.member_id = kMember;
  req.share_session_epoch = epoch;
  req.max_wait_ms = max_wait;
  req.min_bytes = 1;
  req.max_bytes = 1 << 20;
  req.max_records = 500;
  req.batch_size = 500;
  ShareFetchRequest::FetchTopic t;
  t.topic_id = topic;
  ShareFetchRequest::FetchPartition p;
  p.partition_index = 0;
  p.acknowledgement_batches = std::move(acks);
  t.partitions.push_back(p);
  req.topics.push_back(t);
  return req;
}

ShareAcknowledgeRequest ack_req(Uuid topic, int32_t epoch, int64_t first, int64_t last, int8_t type) {
  ShareAcknowledgeRequest req;
  req.group_id = "sg";
  req.member_id = kMember;
  req.share_session_epoch = epoch;
  ShareAcknowledgeRequest::AcknowledgeTopic t;
  t.topic_id = topic;
  ShareAcknowledgeRequest::AcknowledgePartition p;
  p.partition_index = 0;
  p.acknowledgement_batches.push_back({first, last, {type}, {}});
  t.partitions.push_back(p);
  req.topics.push_back(t);
  return req;
}

const ShareFetchResponse::PartitionData& only(const ShareFetchResponse& r) {
  REQUIRE(r.responses.size() == 1);
  REQUIRE(r.responses[0].partitions.size() == 1);
  return r.responses[0].partitions[0];
}

}  // namespace

TEST_CASE("ShareFetch acquires records and answers them as a file region with their ranges") {
  ShareApiEnv env;
  Uuid id = env.create("q");
  env.append("q", 5);
  env.append("q", 5);
  auto resp = env.share_fetch(fetch_req(id, 0));
  CHECK(resp.error_code == 0);
  CHECK(resp.acquisition_lock_timeout_ms == 30000);
  const auto& pd = only(resp);
  CHECK(pd.error_code == 0);
  REQUIRE(pd.acquired_records.size() == 1);
  CHECK(pd.acquired_records[0].first_offset == 0);
  CHECK(pd.acquired_records[0].last_offset == 9);
  CHECK(pd.acquired_records[0].delivery_count == 1);
  CHECK(pd.records.size() == env.batches[0].size() + env.batches[1].size());
  CHECK(env.persister.reads == 1);

  // Continue the session: acknowledge, nothing more to acquire.
  auto next = env.share_fetch(fetch_req(id, 1, {{0, 9, {1}, {}}}));
  CHECK(next.error_code == 0);
  const auto& pd2 = only(next);
  CHECK(pd2.acknowledge_error_code == 0);
  CHECK(pd2.acquired_records.empty());
  REQUIRE(env.persister.written.size() == 1);
  CHECK(env.persister.written[0].batches[0].delivery_state == 2);
}

TEST_CASE("ShareAcknowledge: session epochs, Kafka's per-partition errors, close") {
  ShareApiEnv env;
  Uuid id = env.create("q");
  env.append("q", 10);
  REQUIRE(only(env.share_fetch(fetch_req(id, 0))).acquired_records.size() == 1);
  auto r = env.share_ack(ack_req(id, 1, 5, 9, 2));  // release 5-9
  CHECK(r.error_code == 0);
  REQUIRE(r.responses.size() == 1);
  CHECK(r.responses[0].partitions[0].error_code == 0);
  r = env.share_ack(ack_req(id, 2, 5, 9, 1));  // no longer acquired
  CHECK(r.responses[0].partitions[0].error_code == code(ErrorCode::kInvalidRecordState));
  CHECK(r.responses[0].partitions[0].error_message == "The offset cannot be acknowledged. The offset is not acquired.");
  r = env.share_ack(ack_req(id, 2, 5, 9, 1));  // epoch 2 was used
  CHECK(r.error_code == code(ErrorCode::kInvalidShareSessionEpoch));
  r = env.share_ack(ack_req(id, 0, 0, 4, 1));
  CHECK(r.error_code == code(ErrorCode::kInvalidShareSessionEpoch));
  r = env.share_ack(ack_req(id, 3, 4, 2, 1));  // first > last
  CHECK(r.responses[0].partitions[0].error_code == code(ErrorCode::kInvalidRequest));
  r = env.share_ack(ack_req(id, -1, 0, 4, 1));  // accept and close
  CHECK(r.responses[0].partitions[0].error_code == 0);
  CHECK(env.mgr->sessions().size() == 0);
  r = env.share_ack(ack_req(id, 1, 0, 4, 1));
  CHECK(r.error_code == code(ErrorCode::kShareSessionNotFound));
  CHECK(r.error_message == "The share session was not found.");
}

TEST_CASE("a ShareFetch that acquires nothing waits until an append wakes it") {
  ShareApiEnv env;
  Uuid id = env.create("q");
  env.start(*env.fetch_handler, fetch_req(id, 0, {}, 10000), 1);
  CHECK_FALSE(env.sender.wait(std::chrono::milliseconds(100)));
  env.append("q", 3);
  api::wake_partition(env.h.components().services().fetch_purgatory, "q", 0);
  auto r = env.sender.wait();
  REQUIRE(r);
  auto resp = env.h.decode<ShareFetchResponse>(*r, 1);
  const auto& pd = only(resp);
  REQUIRE(pd.acquired_records.size() == 1);
  CHECK(pd.acquired_records[0].last_offset == 2);
}

TEST_CASE("ShareFetch's request errors") {
  ShareApiEnv env;
  Uuid id = env.create("q");
  auto req = fetch_req(id, 0);
  req.member_id = "";
  auto r = env.share_fetch(req);
  CHECK(r.error_code == code(ErrorCode::kInvalidRequest));
  CHECK(r.error_message == "Invalid member id in the request.");
  r = env.share_fetch(fetch_req(id, 0, {{0, 1, {1}, {}}}));  // acknowledgements in an opening fetch
  CHECK(r.error_code == code(ErrorCode::kInvalidRequest));
  r = env.share_fetch(fetch_req(id, 5));
  CHECK(r.error_code == code(ErrorCode::kShareSessionNotFound));
  Uuid unknown;
  unknown.bytes[3] = 9;
  r = env.share_fetch(fetch_req(unknown, 0));
  CHECK(r.error_code == 0);
  CHECK(only(r).error_code == code(ErrorCode::kUnknownTopicId));
  r = env.share_fetch(fetch_req(id, 7));
  CHECK(r.error_code == code(ErrorCode::kInvalidShareSessionEpoch));
  auto renew = fetch_req(id, 1);
  renew.is_renew_ack = true;
  r = env.share_fetch(renew, 2);
  CHECK(r.error_code == code(ErrorCode::kInvalidRequest));
  CHECK(r.error_message ==
        "maxBytes must be set to 0, minBytes must be set to 0, maxRecords must be set to 0, if isRenewAck is true.");
}

TEST_CASE("the final ShareFetch acknowledges, then closes the session and releases the rest") {
  ShareApiEnv env;
  Uuid id = env.create("q");
  env.append("q", 10);
  REQUIRE(only(env.share_fetch(fetch_req(id, 0))).acquired_records.size() == 1);
  auto req = fetch_req(id, -1, {{0, 4, {1}, {}}});
  auto r = env.share_fetch(req);
  CHECK(r.error_code == 0);
  CHECK(only(r).acknowledge_error_code == 0);
  CHECK(env.mgr->sessions().size() == 0);
  // 5-9 were released: another member gets them at delivery count 2.
  auto other = fetch_req(id, 0);
  other.member_id = "m2-0123456789";
  auto got = only(env.share_fetch(other));
  REQUIRE(got.acquired_records.size() == 1);
  CHECK(got.acquired_records[0].first_offset == 5);
  CHECK(got.acquired_records[0].delivery_count == 2);
}

TEST_CASE("ShareFetch v2's record-limit mode and renewing acknowledgements") {
  ShareApiEnv env;
  Uuid id = env.create("q");
  env.append("q", 10);
  auto req = fetch_req(id, 0);
  req.share_acquire_mode = 1;
  req.max_records = 3;
  auto resp = env.share_fetch(req, 2);
  const auto& pd = only(resp);
  REQUIRE(pd.acquired_records.size() == 1);
  CHECK(pd.acquired_records[0].first_offset == 0);
  CHECK(pd.acquired_records[0].last_offset == 2);
  CHECK(pd.records.size() == env.batches[0].size());  // the whole log batch; the client takes 0-2
  // Renew (type 4) only in a renew request of v2.
  auto renew = ack_req(id, 1, 0, 2, 4);
  auto r = env.share_ack(renew, 1);
  CHECK(r.responses[0].partitions[0].error_code == code(ErrorCode::kInvalidRequest));
  r = env.share_ack(ack_req(id, 2, 0, 2, 4), 2);
  CHECK(r.responses[0].partitions[0].error_code == code(ErrorCode::kInvalidRequest));
  renew = ack_req(id, 3, 0, 2, 4);
  renew.is_renew_ack = true;
  r = env.share_ack(renew, 2);
  CHECK(r.error_code == 0);
  CHECK(r.responses[0].partitions[0].error_code == 0);
  CHECK(env.persister.written.empty());  // renewing persists nothing
}

TEST_CASE("read_committed share groups: the batch headers read, aborted transactions archived") {
  ShareApiEnv env;
  env.config.s.read_committed = true;
  Uuid id = env.create("q");
  auto log = env.h.logs().get_log("q", 0);
  for (int64_t pid : {7, 8}) {
    storage::BatchBuilder b;
    b.producer(pid, 0, 0).transactional(true);
    b.add("k", "v", wall_clock_ms()).add("k", "v", wall_clock_ms());
    auto bytes = b.build();
    REQUIRE(log->append(bytes).has_value());
  }
  REQUIRE(log->append_marker(7, 0, false, 0, 1, 0, wall_clock_ms()).has_value());  // 4: 7 aborts
  REQUIRE(log->append_marker(8, 0, true, 0, 1, 0, wall_clock_ms()).has_value());   // 5: 8 commits
  auto read = api::share_api::read(*log, 0, 1 << 20, true);
  REQUIRE(read.batches.size() == 4);
  CHECK(read.batches[0].producer_id == 7);
  CHECK(read.batches[0].is_transactional);
  CHECK_FALSE(read.batches[0].is_control);
  CHECK(read.batches[1].last_offset == 3);
  CHECK(read.batches[2].is_control);
  CHECK(read.batches[2].is_abort_marker);
  CHECK(read.batches[3].is_control);
  CHECK_FALSE(read.batches[3].is_abort_marker);
  REQUIRE(read.aborted.size() == 1);
  CHECK(read.aborted[0].producer_id == 7);

  auto resp = env.share_fetch(fetch_req(id, 0));
  const auto& pd = only(resp);
  REQUIRE(pd.acquired_records.size() == 1);
  CHECK(pd.acquired_records[0].first_offset == 2);
  CHECK(pd.acquired_records[0].last_offset == 5);
}
