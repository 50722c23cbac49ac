// TxnOffsetCommit through its handler (encoded request, decoded response),
// with a stand-in for the transaction coordinator's check (TxnProduceGate),
// and OffsetFetch with require_stable through KafkaApis-encoded requests.
#include "api/handlers/txn_offset_commit_handler.h"

#include "api/handlers/offset_fetch_handler.h"
#include "api/topics.h"
#include "protocol/frame.h"
#include "protocol/generated/create_topics_response.h"
#include "protocol/generated/offset_fetch_request.h"
#include "protocol/generated/offset_fetch_response.h"
#include "tests/api/api_harness.h"
#include "tests/coordinator/group/group_fixture.h"

using namespace skiff;
using namespace skiff::protocol;

namespace {

// Answers every check with `answer`, remembering the last one.
class FakeGate : public txn::TxnProduceGate {
 public:
  void check(Check c, std::function<void(std::map<txn::TopicPartition, ErrorCode>)> done) override {
    last = c;
    std::map<txn::TopicPartition, ErrorCode> out;
    for (const auto& tp : c.partitions) out[tp] = answer;
    done(out);
  }
  ErrorCode answer = ErrorCode::kNone;
  std::optional<Check> last;
};

struct HandlerRig {
  test::ApiHarness h;
  test::GroupFixture groups;
  FakeGate gate;
  config::BrokerConfig config;
  api::BrokerInfo broker;
  api::BrokerServices services{config, broker, h.logs()};
  api::TxnOffsetCommitHandler txn{services};
  api::OffsetFetchHandler fetch{services};
  test::CapturingSender sender;

  HandlerRig() {
    services.groups = groups.coordinator.get();
    services.txn_gate = &gate;
    services.txn_offsets = groups.coordinator.get();
    REQUIRE(h.call<CreateTopicsResponse>(test::create_topics_request("t", 2, 1), 5).topics[0].error_code == 0);
  }

  template <class Resp, class Req>
  Resp call(api::ApiHandler& handler, const Req& body, int16_t version) {
    auto bytes = h.frame(body, version);
    network::Request raw;
    raw.context.listener_name = "PLAINTEXT";
    raw.frame = network::Frame(bytes.size());
    std::copy(bytes.begin(), bytes.end(), raw.frame.data());
    protocol::ByteReader reader(raw.frame.bytes());
    auto decoded = protocol::read_request_header(reader);
    api::ApiRequest request{std::move(raw), std::move(decoded.header), reader.position()};
    api::Responder out(sender, request.context(), request.correlation_id(), request.api_version());
    handler.handle(request, out);
    auto r = sender.wait();
    REQUIRE(r.has_value());
    return h.decode<Resp>(*r, version);
  }
};

TxnOffsetCommitRequest txn_commit(int16_t version, int64_t offset, const Uuid& topic_id = {}) {
  TxnOffsetCommitRequest r;
  r.transactional_id = "tx";
  r.group_id = "g";
  r.producer_id = 7;
  r.producer_epoch = 0;
  TxnOffsetCommitRequest::TxnOffsetCommitRequestTopic t;
  if (version >= 6)
    t.topic_id = topic_id;
  else
    t.name = "t";
  TxnOffsetCommitRequest::TxnOffsetCommitRequestPartition p;
  p.partition_index = 1;
  p.committed_offset = offset;
  t.partitions.push_back(p);
  p.partition_index = 9;  // no such partition
  t.partitions.push_back(p);
  r.topics.push_back(t);
  return r;
}

OffsetFetchResponse fetch(HandlerRig& rig, int16_t version) {
  OffsetFetchRequest f;
  f.require_stable = version >= 7;
  if (version >= 8) {
    OffsetFetchRequest::OffsetFetchRequestGroup g;
    g.group_id = "g";
    OffsetFetchRequest::OffsetFetchRequestTopics t;
    t.name = "t";
    t.partition_indexes = {1};
    g.topics = std::vector{t};
    f.groups.push_back(g);
  } else {
    f.group_id = "g";
    OffsetFetchRequest::OffsetFetchRequestTopic t;
    t.name = "t";
    t.partition_indexes = {1};
    f.topics = std::vector{t};
  }
  return rig.call<OffsetFetchResponse>(rig.fetch, f, version);
}

}  // namespace

TEST_CASE("TxnOffsetCommit v0-6: pending until the marker, require_stable sees UNSTABLE_OFFSET_COMMIT",
          "[groups][txn][api]") {
  for (int16_t version : {0, 3, 5, 6}) {
    DYNAMIC_SECTION("v" << version) {
      HandlerRig rig;
      auto id = rig.h.logs().topic("t")->topic_id;
      auto r = rig.call<TxnOffsetCommitResponse>(rig.txn, txn_commit(version, 42, id), version);
      REQUIRE(r.topics.size() == 1);
      REQUIRE(r.topics[0].partitions.size() == 2);
      CHECK(r.topics[0].partitions[0].error_code == 0);
      CHECK(r.topics[0].partitions[1].error_code == code(ErrorCode::kUnknownTopicOrPartition));
      REQUIRE(rig.gate.last);
      CHECK(rig.gate.last->implicit_add == (version >= 5));
      CHECK(rig.gate.last->partitions ==
            std::set<txn::TopicPartition>{{"__consumer_offsets", rig.groups.c().offsets_partition_for("g")}});

      auto v7 = fetch(rig, 7);
      CHECK(v7.error_code == 0);
      CHECK(v7.topics[0].partitions[0].error_code == code(ErrorCode::kUnstableOffsetCommit));
      CHECK(v7.topics[0].partitions[0].committed_offset == -1);
      auto v8 = fetch(rig, 8);
      CHECK(v8.groups[0].error_code == 0);
      CHECK(v8.groups[0].topics[0].partitions[0].error_code == code(ErrorCode::kUnstableOffsetCommit));
      auto v6 = fetch(rig, 6);  // no require_stable before v7: the committed offset (none yet)
      CHECK(v6.topics[0].partitions[0].error_code == 0);
      CHECK(v6.topics[0].partitions[0].committed_offset == -1);

      std::optional<ErrorCode> done;
      rig.groups.c().on_marker(7, 0, true, rig.groups.c().offsets_partition_for("g"), [&](ErrorCode e) { done = e; });
      CHECK(done == ErrorCode::kNone);
      auto after = fetch(rig, 8);
      CHECK(after.groups[0].topics[0].partitions[0].error_code == 0);
      CHECK(after.groups[0].topics[0].partitions[0].committed_offset == 42);
    }
  }
}

TEST_CASE("TxnOffsetCommit: the transaction check's errors, as Kafka maps them", "[groups][txn][api]") {
  HandlerRig rig;
  auto answer = [&](ErrorCode gate, int16_t version) {
    rig.gate.answer = gate;
    return rig.call<TxnOffsetCommitResponse>(rig.txn, txn_commit(version, 1), version)
        .topics[0]
        .partitions[0]
        .error_code;
  };
  // Kafka 4.4's AddPartitionsToTxnManager: an epoch the coordinator has
  // moved past (a TV2 end bumped it) is INVALID_PRODUCER_EPOCH, as on
  // Produce, never PRODUCER_FENCED; TRANSACTION_ABORTABLE is
  // INVALID_TXN_STATE below v4.
  CHECK(answer(ErrorCode::kProducerFenced, 5) == code(ErrorCode::kInvalidProducerEpoch));
  CHECK(answer(ErrorCode::kProducerFenced, 3) == code(ErrorCode::kInvalidProducerEpoch));
  CHECK(answer(ErrorCode::kTransactionAbortable, 4) == code(ErrorCode::kTransactionAbortable));
  CHECK(answer(ErrorCode::kTransactionAbortable, 3) == code(ErrorCode::kInvalidTxnState));
  // Then the group coordinator's handleOperationException: storage-side
  // errors become coordinator errors, CONCURRENT_TRANSACTIONS and the
  // coordinator errors go through as they are.
  CHECK(answer(ErrorCode::kConcurrentTransactions, 5) == code(ErrorCode::kConcurrentTransactions));
  CHECK(answer(ErrorCode::kNotCoordinator, 5) == code(ErrorCode::kNotCoordinator));
  CHECK(answer(ErrorCode::kCoordinatorLoadInProgress, 5) == code(ErrorCode::kCoordinatorLoadInProgress));
  CHECK(answer(ErrorCode::kNotEnoughReplicas, 5) == code(ErrorCode::kCoordinatorNotAvailable));
  CHECK(answer(ErrorCode::kInvalidProducerIdMapping, 5) == code(ErrorCode::kInvalidProducerIdMapping));
  // Nothing became pending.
  CHECK(fetch(rig, 8).groups[0].topics[0].partitions[0].error_code == 0);
  // v6 with an unknown topic id.
  auto unknown = rig.call<TxnOffsetCommitResponse>(rig.txn, txn_commit(6, 1, Uuid{}), 6);
  CHECK(unknown.topics[0].partitions[0].error_code == code(ErrorCode::kUnknownTopicId));
}
