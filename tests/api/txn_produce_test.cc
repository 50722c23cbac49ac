// Transactional Produce (KIP-98 / KIP-890) against a fake TxnProduceGate:
// the gate's answer decides each transactional partition (Kafka 4.4's codes
// per Produce version), v12+ asks for an implicit add, the answer waits for
// a gate that completes later on another thread, and without a gate the
// request is refused clearly. Also Produce v13, where topics are ids.
#include <atomic>
#include <deque>
#include <mutex>
#include <thread>

#include "api/topics.h"
#include "common/wall_clock.h"
#include "coordinator/txn/txn_gates.h"
#include "log/batch_builder.h"
#include "protocol/generated/produce_request.h"
#include "protocol/generated/produce_response.h"
#include "tests/api/api_harness.h"
#include "tests/api/handler_calls.h"

using namespace skiff;
using protocol::ProduceRequest;
using protocol::ProduceResponse;
using skiff::ErrorCode;
using txn::TopicPartition;

namespace {

// Answers each check with `answers` (absent partitions: NONE), at once or,
// with `hold`, when the test calls release() (from any thread).
class FakeGate : public txn::TxnProduceGate {
 public:
  using Done = std::function<void(std::map<TopicPartition, ErrorCode>)>;
  void check(Check c, Done done) override {
    std::unique_lock lock(mu_);
    checks.push_back(c);
    if (hold) {
      held_.push_back(std::move(done));
      return;
    }
    auto answers_now = answers;
    auto hook = before_answer;
    lock.unlock();
    if (hook) hook();
    done(answers_now);
  }
  void release() {
    std::vector<Done> held;
    {
      std::lock_guard lock(mu_);
      held.swap(held_);
    }
    for (auto& d : held) d(answers);
  }
  size_t held() {
    std::lock_guard lock(mu_);
    return held_.size();
  }

  std::map<TopicPartition, ErrorCode> answers;
  bool hold = false;
  std::function<void()> before_answer;  // runs before each immediate answer
  std::vector<Check> checks;

 private:
  std::mutex mu_;
  std::vector<Done> held_;
};

std::vector<uint8_t> txn_batch(int64_t pid = 7, int16_t epoch = 0, int32_t seq = 0) {
  return storage::BatchBuilder().producer(pid, epoch, seq).transactional(true).add("k", "v", wall_clock_ms()).build();
}

std::vector<uint8_t> plain_batch() { return storage::make_test_batch(2, 10, wall_clock_ms()); }

// Records values are views: the batches live as long as the test binary.
void add(ProduceRequest& req, const std::string& topic, int32_t partition, std::vector<uint8_t> records) {
  static std::mutex mu;
  static std::deque<std::vector<uint8_t>> kept;
  std::lock_guard lock(mu);
  const auto& bytes = kept.emplace_back(std::move(records));
  if (req.topic_data.empty() || req.topic_data.back().name != topic) {
    req.topic_data.emplace_back();
    req.topic_data.back().name = topic;
  }
  ProduceRequest::PartitionProduceData p;
  p.index = partition;
  p.records = protocol::Records::bytes(bytes);
  req.topic_data.back().partition_data.push_back(p);
}

ProduceRequest txn_produce(std::vector<uint8_t> records, int16_t acks = -1) {
  ProduceRequest req;
  req.transactional_id = "tx-1";
  req.acks = acks;
  req.timeout_ms = 1000;
  add(req, "t", 0, std::move(records));
  return req;
}

int64_t end_offset(test::ApiHarness& h, const std::string& topic, int32_t partition) {
  auto log = h.logs().get_log(topic, partition);
  return log ? log->log_end_offset().value : -1;
}

// Two partitions of "t", so that a request can mix them.
void create_topic(test::ApiHarness& h) {
  auto created = h.logs().create_topic("t", 2, {}, false);
  REQUIRE(created);
}

}  // namespace

TEST_CASE("transactional produce appends when the gate says so, v12+ asks for the implicit add",
          "[api][produce][txn]") {
  test::ApiHarness h;
  create_topic(h);
  FakeGate gate;
  h.apis().set_txn_produce_gate(&gate);
  size_t asked = 0;
  for (int16_t v : {3, 10, 11, 12, 13}) {
    auto req = txn_produce(txn_batch(100 + v));  // a new producer: its first batch here
    if (v >= 13) req.topic_data[0].topic_id = h.logs().topic("t")->topic_id;
    const int64_t before = end_offset(h, "t", 0);
    auto r = test::only_partition(h.call<ProduceResponse>(req, v));
    CHECK(r.error_code == 0);
    CHECK(r.base_offset == before);
    CHECK(end_offset(h, "t", 0) == before + 1);
    REQUIRE(gate.checks.size() == ++asked);
    const auto& c = gate.checks.back();
    CHECK(c.transactional_id == "tx-1");
    CHECK(c.producer_id == 100 + v);
    CHECK(c.epoch == 0);
    CHECK(c.partitions == std::set<TopicPartition>{{"t", 0}});
    CHECK(c.implicit_add == (v >= 12));
  }
}

TEST_CASE("the partition's own producer state answers first, as Kafka's log does", "[api][produce][txn]") {
  test::ApiHarness h;
  create_topic(h);
  FakeGate gate;
  h.apis().set_txn_produce_gate(&gate);
  REQUIRE(test::only_partition(h.call<ProduceResponse>(txn_produce(txn_batch(7, 1, 0)), 11)).error_code == 0);
  REQUIRE(gate.checks.size() == 1);
  // The transaction of (7, 1) is open on t-0: the partition is in it.
  gate.answers = {{{"t", 0}, ErrorCode::kTransactionAbortable}};
  CHECK(test::only_partition(h.call<ProduceResponse>(txn_produce(txn_batch(7, 1, 1)), 11)).error_code == 0);
  CHECK(gate.checks.size() == 1);
  CHECK(end_offset(h, "t", 0) == 2);
  // An older epoch than the partition has seen: INVALID_PRODUCER_EPOCH, no check.
  CHECK(test::only_partition(h.call<ProduceResponse>(txn_produce(txn_batch(7, 0, 0)), 12)).error_code == 47);
  CHECK(gate.checks.size() == 1);
  // A newer epoch (a new transaction after an epoch bump) is checked.
  CHECK(test::only_partition(h.call<ProduceResponse>(txn_produce(txn_batch(7, 2, 0)), 12)).error_code == 120);
  CHECK(gate.checks.size() == 2);
  CHECK(end_offset(h, "t", 0) == 2);
}

TEST_CASE("a refused transactional partition gets Kafka 4.4's code for the Produce version", "[api][produce][txn]") {
  test::ApiHarness h;
  create_topic(h);
  FakeGate gate;
  h.apis().set_txn_produce_gate(&gate);
  struct Case {
    ErrorCode gate_says;
    int16_t version;
    int16_t expected;
    const char* message;  // substring, or null: no message
  };
  const Case cases[] = {
      {ErrorCode::kTransactionAbortable, 10, 48, "Partition was not added to the transaction"},
      {ErrorCode::kTransactionAbortable, 11, 120, nullptr},
      {ErrorCode::kTransactionAbortable, 12, 120, nullptr},
      {ErrorCode::kInvalidTxnState, 11, 48, "Partition was not added to the transaction"},
      {ErrorCode::kProducerFenced, 11, 47, nullptr},
      {ErrorCode::kProducerFenced, 12, 47, nullptr},
      {ErrorCode::kInvalidProducerEpoch, 9, 47, nullptr},
      {ErrorCode::kConcurrentTransactions, 11, 19, "Underlying error: CONCURRENT_TRANSACTIONS"},
      {ErrorCode::kConcurrentTransactions, 12, 51, nullptr},
      {ErrorCode::kCoordinatorNotAvailable, 12, 19, "Underlying error: COORDINATOR_NOT_AVAILABLE"},
      {ErrorCode::kNotCoordinator, 8, 19, "Underlying error: NOT_COORDINATOR"},
      {ErrorCode::kInvalidProducerIdMapping, 12, 49, nullptr},
  };
  for (const auto& c : cases) {
    INFO("gate " << code(c.gate_says) << " at v" << c.version);
    gate.answers = {{{"t", 0}, c.gate_says}};
    auto r = test::only_partition(h.call<ProduceResponse>(txn_produce(txn_batch()), c.version));
    CHECK(r.error_code == c.expected);
    CHECK(r.base_offset == -1);
    if (c.message)
      CHECK(r.error_message.value_or("").find(c.message) != std::string::npos);
    else
      CHECK(!r.error_message.has_value());
  }
  CHECK(end_offset(h, "t", 0) == 0);  // nothing appended
}

TEST_CASE("a mixed request: only the transactional partitions wait for the gate's verdict", "[api][produce][txn]") {
  test::ApiHarness h;
  create_topic(h);
  FakeGate gate;
  h.apis().set_txn_produce_gate(&gate);
  gate.answers = {{{"t", 0}, ErrorCode::kTransactionAbortable}};
  ProduceRequest req = txn_produce(txn_batch());
  add(req, "t", 1, plain_batch());
  auto r = h.call<ProduceResponse>(req, 11);
  REQUIRE(r.responses.size() == 1);
  REQUIRE(r.responses[0].partition_responses.size() == 2);
  CHECK(r.responses[0].partition_responses[0].error_code == 120);
  CHECK(r.responses[0].partition_responses[1].error_code == 0);
  CHECK(end_offset(h, "t", 0) == 0);
  CHECK(end_offset(h, "t", 1) == 2);
  REQUIRE(gate.checks.size() == 1);
  CHECK(gate.checks[0].partitions == std::set<TopicPartition>{{"t", 0}});

  SECTION("a transactional id with only plain batches appends without asking the gate") {
    ProduceRequest plain = txn_produce(plain_batch());
    CHECK(test::only_partition(h.call<ProduceResponse>(plain, 11)).error_code == 0);
    CHECK(end_offset(h, "t", 0) == 2);
    CHECK(gate.checks.size() == 1);
  }
  SECTION("a partition that does not exist is answered without asking the gate") {
    ProduceRequest bad = txn_produce(txn_batch());
    bad.topic_data[0].partition_data[0].index = 9;
    CHECK(test::only_partition(h.call<ProduceResponse>(bad, 12)).error_code == 3);
    CHECK(gate.checks.size() == 1);
  }
}

TEST_CASE("transactional records refused for the whole request, as Kafka", "[api][produce][txn]") {
  test::ApiHarness h;
  create_topic(h);
  FakeGate gate;

  SECTION("no gate: a clear, non-retriable refusal") {
    h.apis().set_txn_produce_gate(nullptr);  // the coordinator not running
    auto r = test::only_partition(h.call<ProduceResponse>(txn_produce(txn_batch()), 12));
    CHECK(r.error_code == 53);  // TRANSACTIONAL_ID_AUTHORIZATION_FAILED: fatal for the producer
    CHECK(r.error_message.value_or("").find("transaction coordinator") != std::string::npos);
  }
  SECTION("no transactional id") {
    h.apis().set_txn_produce_gate(&gate);
    auto req = txn_produce(txn_batch());
    req.transactional_id.reset();
    CHECK(test::only_partition(h.call<ProduceResponse>(req, 11)).error_code == 53);
  }
  SECTION("two producers in one request") {
    h.apis().set_txn_produce_gate(&gate);
    auto req = txn_produce(txn_batch(7));
    add(req, "t", 1, txn_batch(8));
    auto r = h.call<ProduceResponse>(req, 12);
    for (const auto& p : r.responses.at(0).partition_responses) CHECK(p.error_code == 49);
  }
  CHECK(gate.checks.empty());
  CHECK(end_offset(h, "t", 0) == 0);
  CHECK(end_offset(h, "t", 1) == 0);
}

TEST_CASE("the answer waits for a gate that completes later on another thread", "[api][produce][txn]") {
  test::ApiHarness h;
  create_topic(h);
  FakeGate gate;
  gate.hold = true;
  h.apis().set_txn_produce_gate(&gate);

  SECTION("acks=-1") {
    ProduceRequest req = txn_produce(txn_batch());
    add(req, "t", 1, plain_batch());
    h.start(req, 12);  // the harness's frame is gone once handle() returns: the completion owns it
    CHECK(!h.wait(std::chrono::milliseconds(100)));
    CHECK(gate.held() == 1);
    CHECK(end_offset(h, "t", 0) == 0);
    CHECK(end_offset(h, "t", 1) == 0);  // appended with the rest, after the check (Kafka's order)
    std::thread([&] { gate.release(); }).join();
    auto resp = h.wait(std::chrono::seconds(5));
    REQUIRE(resp);
    auto r = h.decode<ProduceResponse>(*resp, 12);
    REQUIRE(r.responses.at(0).partition_responses.size() == 2);
    CHECK(r.responses[0].partition_responses[0].error_code == 0);
    CHECK(r.responses[0].partition_responses[1].error_code == 0);
    CHECK(end_offset(h, "t", 0) == 1);
    CHECK(end_offset(h, "t", 1) == 2);
    // The batch went to the log intact (CRC checked again on the way in).
    auto read = h.logs().get_log("t", 0)->read(storage::Offset(0), 1 << 20);
    CHECK(read->slice.length > 0);
  }
  SECTION("acks=0: nothing on success, a close on a refusal") {
    h.start(txn_produce(txn_batch(), 0), 12);
    CHECK(!h.wait(std::chrono::milliseconds(50)));
    std::thread([&] { gate.release(); }).join();
    auto ok = h.wait(std::chrono::seconds(5));
    REQUIRE(ok);
    CHECK(ok->action == network::Response::Action::kNoOp);
    gate.answers = {{{"t", 0}, ErrorCode::kProducerFenced}};
    h.start(txn_produce(txn_batch(7, 1, 0), 0), 12);  // a new epoch: checked again
    std::thread([&] { gate.release(); }).join();
    auto refused = h.wait(std::chrono::seconds(5));
    REQUIRE(refused);
    CHECK(refused->action == network::Response::Action::kClose);
    CHECK(end_offset(h, "t", 0) == 1);
  }
}

TEST_CASE("a marker written while the coordinator is asked: the verification is taken again", "[api][produce][txn]") {
  test::ApiHarness h;
  create_topic(h);
  FakeGate gate;
  h.apis().set_txn_produce_gate(&gate);
  auto log = h.logs().get_log("t", 0);
  auto write_marker = [&] {
    REQUIRE(
        log->append_marker(7, 1, true, 0, 2, 0, wall_clock_ms()).has_value());  // TV2: the previous transaction's end
  };
  SECTION("once (TV2's usual case): asked again, appended") {
    gate.hold = true;
    h.start(txn_produce(txn_batch(7, 1, 0)), 12);
    CHECK(!h.wait(std::chrono::milliseconds(50)));
    write_marker();
    gate.hold = false;
    std::thread([&] { gate.release(); }).join();
    auto resp = h.wait(std::chrono::seconds(5));
    REQUIRE(resp);
    CHECK(test::only_partition(h.decode<ProduceResponse>(*resp, 12)).error_code == 0);
    CHECK(gate.checks.size() == 2);
    CHECK(log->producer_state(7)->current_txn_first_offset == 1);
  }
  SECTION("every time: refused with INVALID_TXN_STATE, nothing appended") {
    gate.before_answer = write_marker;
    auto r = test::only_partition(h.call<ProduceResponse>(txn_produce(txn_batch(7, 1, 0)), 12));
    CHECK(r.error_code == 48);
    CHECK(gate.checks.size() == 4);
    CHECK(log->producer_state(7)->current_txn_first_offset < 0);
  }
}

TEST_CASE("produce v13 names topics by id", "[api][produce]") {
  test::ApiHarness h;
  create_topic(h);
  const auto id = h.logs().topic("t")->topic_id;
  ProduceRequest req;
  req.acks = -1;
  req.timeout_ms = 1000;
  add(req, "", 1, plain_batch());
  req.topic_data[0].topic_id = id;
  auto r = h.call<ProduceResponse>(req, 13);
  REQUIRE(r.responses.size() == 1);
  CHECK(r.responses[0].topic_id == id);
  CHECK(r.responses[0].partition_responses.at(0).error_code == 0);
  CHECK(end_offset(h, "t", 1) == 2);

  req.topic_data[0].topic_id = protocol::Uuid{};
  req.topic_data[0].topic_id.bytes[0] = 42;  // no such topic
  auto unknown = h.call<ProduceResponse>(req, 13);
  CHECK(unknown.responses.at(0).partition_responses.at(0).error_code == 100);  // UNKNOWN_TOPIC_ID
  CHECK(end_offset(h, "t", 1) == 2);
}
