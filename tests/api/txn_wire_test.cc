// The transaction coordinator wired into the broker (coordinator/txn/txn_host.h and the
// handlers): FindCoordinator key type 1, InitProducerId with a transactional
// id, AddPartitionsToTxn / AddOffsetsToTxn / EndTxn writing COMMIT and ABORT
// markers into the partitions' logs, Describe/ListTransactions, the Produce
// gate, ApiVersions, and __transaction_state: replayed at startup (a
// PrepareCommit found there completes), compacted by the log cleaner.
// Transactional data is appended straight to the log (Produce's side of
// transactions is another branch's); markers come only from the coordinator.
#include <future>
#include <optional>
#include <set>
#include <thread>

#include "common/wall_clock.h"
#include "coordinator/txn/transaction_log.h"
#include "coordinator/txn/txn_host.h"
#include "log/batch_builder.h"
#include "protocol/generated/add_offsets_to_txn_request.h"
#include "protocol/generated/add_offsets_to_txn_response.h"
#include "protocol/generated/add_partitions_to_txn_request.h"
#include "protocol/generated/add_partitions_to_txn_response.h"
#include "protocol/generated/api_versions_request.h"
#include "protocol/generated/api_versions_response.h"
#include "protocol/generated/describe_transactions_request.h"
#include "protocol/generated/describe_transactions_response.h"
#include "protocol/generated/end_txn_request.h"
#include "protocol/generated/end_txn_response.h"
#include "protocol/generated/find_coordinator_request.h"
#include "protocol/generated/find_coordinator_response.h"
#include "protocol/generated/init_producer_id_request.h"
#include "protocol/generated/init_producer_id_response.h"
#include "protocol/generated/list_transactions_request.h"
#include "protocol/generated/list_transactions_response.h"
#include "protocol/generated/metadata_request.h"
#include "protocol/generated/metadata_response.h"
#include "protocol/generated/write_txn_markers_request.h"
#include "protocol/generated/write_txn_markers_response.h"
#include "tests/api/api_harness.h"
#include "tests/support/eventually.h"

using namespace skiff;
using namespace std::chrono_literals;
using skiff::test::eventually;

namespace {

struct Pid {
  int64_t id;
  int16_t epoch;
};

Pid init(test::ApiHarness& h, const std::string& txn, int16_t version = 4) {
  protocol::InitProducerIdRequest req;
  req.transactional_id = txn;
  req.transaction_timeout_ms = 60000;
  req.producer_id = -1;
  req.producer_epoch = -1;
  auto r = h.call<protocol::InitProducerIdResponse>(req, version);
  REQUIRE(r.error_code == 0);
  return {r.producer_id, r.producer_epoch};
}

// Per partition error codes of a v0-3 AddPartitionsToTxn.
std::map<std::pair<std::string, int32_t>, int16_t> add(test::ApiHarness& h, const std::string& txn, Pid p,
                                                       const std::string& topic, std::vector<int32_t> parts,
                                                       int16_t version = 3) {
  protocol::AddPartitionsToTxnRequest req;
  req.v3_and_below_transactional_id = txn;
  req.v3_and_below_producer_id = p.id;
  req.v3_and_below_producer_epoch = p.epoch;
  protocol::AddPartitionsToTxnRequest::AddPartitionsToTxnTopic t;
  t.name = topic;
  t.partitions = std::move(parts);
  req.v3_and_below_topics.push_back(t);
  auto r = h.call<protocol::AddPartitionsToTxnResponse>(req, version);
  std::map<std::pair<std::string, int32_t>, int16_t> out;
  for (const auto& tr : r.results_by_topic_v3_and_below)
    for (const auto& pr : tr.results_by_partition) out[{tr.name, pr.partition_index}] = pr.partition_error_code;
  return out;
}

protocol::EndTxnResponse end(test::ApiHarness& h, const std::string& txn, Pid p, bool commit, int16_t version = 3) {
  protocol::EndTxnRequest req;
  req.transactional_id = txn;
  req.producer_id = p.id;
  req.producer_epoch = p.epoch;
  req.committed = commit;
  return h.call<protocol::EndTxnResponse>(req, version);
}

void append_txn(storage::Log& log, Pid p, int32_t seq) {
  storage::BatchBuilder b;
  b.producer(p.id, p.epoch, seq).transactional(true);
  b.add("k", "v", wall_clock_ms()).add("k", "v", wall_clock_ms());
  auto bytes = b.build();
  REQUIRE(log.append(bytes).has_value());
}

std::string state_of(test::ApiHarness& h, const std::string& txn) {
  protocol::DescribeTransactionsRequest req;
  req.transactional_ids = {txn};
  auto r = h.call<protocol::DescribeTransactionsResponse>(req, 0);
  REQUIRE(r.transaction_states.size() == 1);
  return r.transaction_states[0].error_code == 0 ? r.transaction_states[0].transaction_state
                                                 : "error " + std::to_string(r.transaction_states[0].error_code);
}

void create(test::ApiHarness& h, const std::string& topic, int32_t partitions) {
  REQUIRE(outcome(h.logs().create_topic(topic, partitions)) == storage::LogErrc::kNone);
}

}  // namespace

TEST_CASE("FindCoordinator for a transactional id answers this node, an empty id is INVALID_REQUEST", "[api][txn]") {
  test::ApiHarness h;
  protocol::FindCoordinatorRequest req;
  req.key_type = 1;
  req.key = "tx";
  auto r = h.call<protocol::FindCoordinatorResponse>(req, 3);
  CHECK(r.error_code == 0);
  CHECK(r.node_id == 1);
  CHECK(r.host == "broker.test");
  req.key.clear();
  req.coordinator_keys = {"tx", ""};
  auto r4 = h.call<protocol::FindCoordinatorResponse>(req, 4);
  REQUIRE(r4.coordinators.size() == 2);
  CHECK(r4.coordinators[0].error_code == 0);
  CHECK(r4.coordinators[0].port == 9092);
  CHECK(r4.coordinators[1].error_code == 42);
}

TEST_CASE("TV1 transactions: commit writes COMMIT markers, abort is listed as aborted", "[api][txn]") {
  test::ApiHarness h;
  create(h, "t", 2);
  auto log0 = h.logs().get_log("t", 0);
  auto log1 = h.logs().get_log("t", 1);
  Pid p = init(h, "tx");
  CHECK(p.epoch == 0);
  append_txn(*log0, p, 0);
  CHECK(log0->last_stable_offset().value == 0);  // undecided
  auto added = add(h, "tx", p, "t", {0, 1});
  CHECK(added[{"t", 0}] == 0);
  CHECK(added[{"t", 1}] == 0);
  CHECK(state_of(h, "tx") == "Ongoing");
  CHECK(end(h, "tx", p, true).error_code == 0);
  // Markers follow the answer: data 0-1, COMMIT at 2; t-1 gets only its marker.
  CHECK(eventually([&] { return log0->log_end_offset().value == 3 && log1->log_end_offset().value == 1; }));
  CHECK(log0->last_stable_offset().value == 3);
  CHECK(eventually([&] { return state_of(h, "tx") == "CompleteCommit"; }));
  CHECK(log0->collect_aborted_txns(storage::Offset(0), storage::Offset(3)).empty());

  CHECK(add(h, "tx", p, "t", {0})[{"t", 0}] == 0);
  append_txn(*log0, p, 2);
  CHECK(end(h, "tx", p, false).error_code == 0);
  CHECK(eventually([&] { return log0->log_end_offset().value == 6; }));
  auto aborted = log0->collect_aborted_txns(storage::Offset(0), storage::Offset(6));
  REQUIRE(aborted.size() == 1);
  CHECK(aborted[0].producer_id == p.id);
  CHECK(eventually([&] { return state_of(h, "tx") == "CompleteAbort"; }));

  protocol::ListTransactionsRequest list;
  list.state_filters = {"CompleteAbort", "Bogus"};
  auto l = h.call<protocol::ListTransactionsResponse>(list, 1);
  REQUIRE(l.transaction_states.size() == 1);
  CHECK(l.transaction_states[0].transactional_id == "tx");
  CHECK(l.unknown_state_filters == std::vector<std::string>{"Bogus"});
  CHECK(state_of(h, "nobody") == "error 105");  // TRANSACTIONAL_ID_NOT_FOUND
}

TEST_CASE("ListTransactions v2 filters by a whole-id RE2 pattern, a bad pattern is INVALID_REGULAR_EXPRESSION",
          "[api][txn]") {
  test::ApiHarness h;
  for (const char* id : {"orders-1", "orders-2", "xorders-1", "payments"}) init(h, id);
  auto ids = [&](std::optional<std::string> pattern, int16_t version = 2) {
    protocol::ListTransactionsRequest list;
    list.transactional_id_pattern = std::move(pattern);
    auto r = h.call<protocol::ListTransactionsResponse>(list, version);
    std::set<std::string> out;
    for (const auto& t : r.transaction_states) out.insert(t.transactional_id);
    if (r.error_code != 0) out.insert("error " + std::to_string(r.error_code));
    return out;
  };
  CHECK(ids("orders-.*") == std::set<std::string>{"orders-1", "orders-2"});  // whole id: not xorders-1
  CHECK(ids("orders") == std::set<std::string>{});
  CHECK(ids("(orders|payments).*").size() == 3);
  CHECK(ids(std::nullopt).size() == 4);
  CHECK(ids("").size() == 4);
  CHECK(ids("orders-(") == std::set<std::string>{"error 128"});
  CHECK(ids("(o)\\1.*") == std::set<std::string>{"error 128"});  // RE2/J has no back-references (Java's has)
  CHECK(ids("a**") == std::set<std::string>{"error 128"});
}

TEST_CASE("AddPartitionsToTxn: a missing partition fails, the rest are not attempted, fencing", "[api][txn]") {
  test::ApiHarness h;
  create(h, "t", 1);
  Pid p = init(h, "tx");
  auto r = add(h, "tx", p, "t", {0, 7});
  CHECK(r[{"t", 0}] == 55);   // OPERATION_NOT_ATTEMPTED
  CHECK(r[{"t", 7}] == 3);    // UNKNOWN_TOPIC_OR_PARTITION
  Pid newer = init(h, "tx");  // a second producer with the same id fences the first
  CHECK(newer.epoch == 1);
  CHECK(add(h, "tx", p, "t", {0})[{"t", 0}] == 90);     // PRODUCER_FENCED
  CHECK(add(h, "tx", p, "t", {0}, 1)[{"t", 0}] == 47);  // INVALID_PRODUCER_EPOCH before v2
  CHECK(end(h, "tx", p, true, 1).error_code == 47);
  protocol::AddOffsetsToTxnRequest ao;
  ao.transactional_id = "tx";
  ao.producer_id = newer.id;
  ao.producer_epoch = newer.epoch;
  ao.group_id = "g";
  CHECK(h.call<protocol::AddOffsetsToTxnResponse>(ao, 3).error_code == 0);
  CHECK(state_of(h, "tx") == "Ongoing");
}

TEST_CASE("EndTxn v5 (transaction version 2) bumps the epoch and answers the new one", "[api][txn]") {
  test::ApiHarness h;
  create(h, "t", 1);
  Pid p = init(h, "tx", 5);
  CHECK(add(h, "tx", p, "t", {0})[{"t", 0}] == 0);
  auto r = end(h, "tx", p, true, 5);
  CHECK(r.error_code == 0);
  CHECK(r.producer_id == p.id);
  CHECK(r.producer_epoch == p.epoch + 1);
  CHECK(eventually([&] { return h.logs().get_log("t", 0)->log_end_offset().value == 1; }));
}

TEST_CASE("The Produce gate verifies partitions (TV1) and adds them implicitly (TV2)", "[api][txn]") {
  test::ApiHarness h;
  create(h, "t", 2);
  Pid p = init(h, "tx");
  auto* gate = &h.components().txn_host();
  REQUIRE(gate != nullptr);
  auto check = [&](std::set<txn::TopicPartition> parts, bool implicit) {
    std::promise<std::map<txn::TopicPartition, ErrorCode>> done;
    auto f = done.get_future();
    gate->check({"tx", p.id, p.epoch, std::move(parts), implicit}, [&](auto r) { done.set_value(std::move(r)); });
    REQUIRE(f.wait_for(10s) == std::future_status::ready);
    return f.get();
  };
  CHECK(check({{"t", 0}}, false).at({"t", 0}) == ErrorCode::kTransactionAbortable);
  CHECK(check({{"t", 0}}, true).at({"t", 0}) == ErrorCode::kNone);
  CHECK(check({{"t", 0}}, false).at({"t", 0}) == ErrorCode::kNone);
  CHECK(state_of(h, "tx") == "Ongoing");
  CHECK(check({{"t", 1}}, false).at({"t", 1}) == ErrorCode::kTransactionAbortable);
}

TEST_CASE("ApiVersions advertises the transaction APIs the coordinator serves", "[api][txn]") {
  test::ApiHarness h;
  protocol::ApiVersionsRequest req;
  req.client_software_name = "t";
  req.client_software_version = "1";
  auto r = h.call<protocol::ApiVersionsResponse>(req, 3);
  std::map<int16_t, std::pair<int16_t, int16_t>> keys;
  for (const auto& k : r.api_keys) keys[k.api_key] = {k.min_version, k.max_version};
  CHECK(keys.at(22) == std::pair<int16_t, int16_t>{0, 5});  // InitProducerId
  CHECK(keys.at(24) == std::pair<int16_t, int16_t>{0, 5});  // AddPartitionsToTxn
  CHECK(keys.at(25) == std::pair<int16_t, int16_t>{0, 4});  // AddOffsetsToTxn
  CHECK(keys.at(26) == std::pair<int16_t, int16_t>{0, 5});  // EndTxn
  CHECK(keys.at(65) == std::pair<int16_t, int16_t>{0, 0});  // DescribeTransactions
  CHECK(keys.at(66) == std::pair<int16_t, int16_t>{0, 2});  // ListTransactions (no v2 pattern: no RE2)
}

TEST_CASE("__transaction_state is replayed at startup: a PrepareCommit completes, state survives", "[api][txn]") {
  test::ApiHarness h;
  create(h, "t", 1);
  Pid p = init(h, "tx");
  Pid q = init(h, "tx2");
  auto log0 = h.logs().get_log("t", 0);
  append_txn(*log0, q, 0);
  // What a crash between the PrepareCommit write and the markers leaves behind.
  txn::TxnTransit prepared;
  prepared.producer_id = q.id;
  prepared.producer_epoch = q.epoch;
  prepared.txn_timeout_ms = 60000;
  prepared.state = txn::TxnState::kPrepareCommit;
  prepared.partitions = {{"t", 0}};
  prepared.txn_start_ms = prepared.txn_last_update_ms = wall_clock_ms();
  storage::BatchBuilder b;
  auto key = txn::encode_txn_log_key("tx2");
  auto value = txn::encode_txn_log_value(prepared, 1);
  b.add(std::string_view(reinterpret_cast<const char*>(key.data()), key.size()),
        std::string_view(reinterpret_cast<const char*>(value.data()), value.size()), wall_clock_ms());
  auto bytes = b.build();
  REQUIRE(h.logs().get_log("__transaction_state", 0)->append(bytes).has_value());
  CHECK(log0->last_stable_offset().value == 0);

  h.restart();
  log0 = h.logs().get_log("t", 0);
  CHECK(eventually([&] { return log0->last_stable_offset().value == 3 && log0->log_end_offset().value == 3; }));
  CHECK(eventually([&] { return state_of(h, "tx2") == "CompleteCommit"; }));
  Pid again = init(h, "tx");  // the id survived: same producer, next epoch
  CHECK(again.id == p.id);
  CHECK(again.epoch == p.epoch + 1);
}

TEST_CASE("__transaction_state is compacted by the log cleaner", "[api][txn]") {
  test::ApiHarness h({"transaction.state.log.segment.bytes=600", "log.cleaner.backoff.ms=20"});
  h.logs().start();  // the cleaner threads
  for (int i = 0; i < 60; ++i) init(h, "tx");
  auto state = h.logs().get_log("__transaction_state", 0);
  auto records = [&] {  // every record from the log start, across segments
    size_t n = 0;
    int64_t next = state->log_start_offset().value;
    while (next < state->log_end_offset().value) {
      auto bytes = state->read(storage::Offset(next), 1 << 20)->slice.read_all();
      storage::BatchIterator it(bytes);
      storage::RecordBatchView v;
      const int64_t before = next;
      while (it.next(v))
        if (v.next_offset() > next) {
          n += v.record_count();
          next = v.next_offset();
        }
      if (next == before) break;
    }
    return n;
  };
  CHECK(state->log_end_offset().value >= 60);  // one record per InitProducerId
  CHECK(eventually([&] { return records() < 20; }));
  h.restart();  // what is left replays to the same state
  CHECK(init(h, "tx").epoch == 60);
}

TEST_CASE("A transaction past its timeout is aborted by the coordinator's timer", "[api][txn]") {
  test::ApiHarness h({"transaction.abort.timed.out.transaction.cleanup.interval.ms=20"});
  create(h, "t", 1);
  protocol::InitProducerIdRequest req;
  req.transactional_id = "slow";
  req.transaction_timeout_ms = 100;
  req.producer_id = -1;
  req.producer_epoch = -1;
  auto r = h.call<protocol::InitProducerIdResponse>(req, 4);
  REQUIRE(r.error_code == 0);
  Pid p{r.producer_id, r.producer_epoch};
  auto log0 = h.logs().get_log("t", 0);
  append_txn(*log0, p, 0);
  CHECK(add(h, "slow", p, "t", {0})[{"t", 0}] == 0);
  // Fenced (epoch + 1) and aborted: the ABORT marker ends the undecided data.
  CHECK(eventually([&] { return state_of(h, "slow") == "CompleteAbort"; }));
  CHECK(eventually([&] { return log0->last_stable_offset().value == 3; }));
  CHECK(log0->collect_aborted_txns(storage::Offset(0), storage::Offset(3)).size() == 1);
  CHECK(end(h, "slow", p, true).error_code == 90);     // the zombie's commit: PRODUCER_FENCED
  CHECK(end(h, "slow", p, true, 1).error_code == 47);  // INVALID_PRODUCER_EPOCH before v2
}

TEST_CASE("Clients never auto-create __transaction_state", "[api][txn]") {
  test::ApiHarness h;
  protocol::MetadataRequest req;
  protocol::MetadataRequest::MetadataRequestTopic t;
  t.name = "__transaction_state";
  req.topics = std::vector{t};
  req.allow_auto_topic_creation = true;
  auto r = h.call<protocol::MetadataResponse>(req, 12);
  REQUIRE(r.topics.size() == 1);
  CHECK(r.topics[0].error_code == 3);  // UNKNOWN_TOPIC_OR_PARTITION
  CHECK(!h.logs().topic("__transaction_state"));
  init(h, "tx");  // the coordinator creates it, compacted
  auto cfg = h.logs().topic_config("__transaction_state");
  REQUIRE(cfg != nullptr);
  r = h.call<protocol::MetadataResponse>(req, 12);
  REQUIRE(r.topics.size() == 1);
  CHECK(r.topics[0].error_code == 0);
  CHECK(r.topics[0].is_internal);
}

TEST_CASE("WriteTxnMarkers ends a hanging transaction (kafka-transactions abort)", "[api][txn]") {
  test::ApiHarness h;
  create(h, "t", 1);
  auto log = h.logs().get_log("t", 0);
  const Pid p{4242, 3};  // a producer the coordinator does not know
  append_txn(*log, p, 0);
  REQUIRE(log->last_stable_offset().value == 0);
  auto request = [&](int16_t epoch, std::vector<int32_t> parts) {
    protocol::WriteTxnMarkersRequest req;
    protocol::WriteTxnMarkersRequest::WritableTxnMarker m;
    m.producer_id = p.id;
    m.producer_epoch = epoch;
    m.transaction_result = false;
    m.coordinator_epoch = 0;
    protocol::WriteTxnMarkersRequest::WritableTxnMarkerTopic t;
    t.name = "t";
    t.partition_indexes = std::move(parts);
    m.topics.push_back(t);
    req.markers.push_back(m);
    return req;
  };
  for (int16_t v : {1, 2}) {
    INFO("version " << v);
    // An unknown partition is refused; nothing is written anywhere.
    auto bad = h.call<protocol::WriteTxnMarkersResponse>(request(p.epoch, {7}), v);
    REQUIRE(bad.markers.size() == 1);
    CHECK(bad.markers[0].producer_id == p.id);
    CHECK(bad.markers[0].topics.at(0).partitions.at(0).error_code == 3);
  }
  // An older epoch than the partition has seen: fenced by the log.
  auto old = h.call<protocol::WriteTxnMarkersResponse>(request(2, {0}), 1);
  CHECK(old.markers.at(0).topics.at(0).partitions.at(0).error_code != 0);
  CHECK(log->last_stable_offset().value == 0);
  // The producer's own epoch: ABORT written, the LSO moves, the data is aborted.
  auto ok = h.call<protocol::WriteTxnMarkersResponse>(request(p.epoch, {0}), 1);
  CHECK(ok.markers.at(0).topics.at(0).partitions.at(0).error_code == 0);
  CHECK(log->log_end_offset().value == 3);
  CHECK(log->last_stable_offset().value == 3);
  auto aborted = log->collect_aborted_txns(storage::Offset(0), storage::Offset(3));
  REQUIRE(aborted.size() == 1);
  CHECK(aborted[0].producer_id == p.id);
}
