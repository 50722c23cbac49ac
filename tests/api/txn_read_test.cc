// Reading transactional data (KIP-98) through Fetch and ListOffsets: with
// isolation_level=1 a fetch stops at the last stable offset and lists the
// aborted transactions of what it returns; both levels report the LSO;
// ListOffsets read_committed answers LATEST with the LSO; DescribeProducers
// shows each producer's ongoing transaction start offset. Markers are
// written with the storage entry point the coordinator's marker writer uses.
#include <map>

#include "common/wall_clock.h"
#include "log/batch_builder.h"
#include "protocol/generated/describe_producers_request.h"
#include "protocol/generated/describe_producers_response.h"
#include "protocol/generated/fetch_request.h"
#include "protocol/generated/fetch_response.h"
#include "protocol/generated/list_offsets_request.h"
#include "protocol/generated/list_offsets_response.h"
#include "tests/api/api_harness.h"
#include "tests/api/handler_calls.h"

using namespace skiff;
using protocol::FetchRequest;
using protocol::FetchResponse;
using protocol::ListOffsetsResponse;

namespace {

void append(storage::Log& log, int64_t pid) {  // pid < 0: non-transactional
  storage::BatchBuilder b;
  if (pid >= 0) b.producer(pid, 0, 0).transactional(true);
  b.add("k", "v", wall_clock_ms()).add("k", "v", wall_clock_ms());
  auto bytes = b.build();
  REQUIRE(log.append(bytes).has_value());
}

FetchRequest fetch(int64_t offset, int8_t isolation) {
  test::FetchOf f;
  f.max_bytes = 1 << 20;
  f.isolation = isolation;
  return test::fetch_request("t", offset, f);
}

// Base offsets of the batches in a fetch answer.
std::vector<int64_t> bases(const FetchResponse::PartitionData& p) {
  auto d = p.records.data();
  std::vector<uint8_t> bytes(d.begin(), d.end());
  storage::BatchIterator it(bytes);
  storage::RecordBatchView v;
  std::vector<int64_t> out;
  while (it.next(v)) out.push_back(v.base_offset());
  return out;
}

int64_t latest(test::ApiHarness& h, int8_t isolation) {
  protocol::ListOffsetsRequest req;
  req.replica_id = -1;
  req.isolation_level = isolation;
  protocol::ListOffsetsRequest::ListOffsetsTopic t;
  t.name = "t";
  protocol::ListOffsetsRequest::ListOffsetsPartition p;
  p.timestamp = -1;
  t.partitions.push_back(p);
  req.topics.push_back(t);
  auto r = h.call<ListOffsetsResponse>(req, 7);
  return r.topics.at(0).partitions.at(0).offset;
}

}  // namespace

TEST_CASE("read_committed fetch stops at the LSO and lists aborted transactions", "[api][fetch][txn]") {
  test::ApiHarness h;
  REQUIRE(outcome(h.logs().create_topic("t", 1)) == storage::LogErrc::kNone);
  auto log = h.logs().get_log("t", 0);
  append(*log, -1);  // 0-1
  append(*log, 7);   // 2-3: producer 7 opens a transaction
  append(*log, 8);   // 4-5: producer 8 too
  REQUIRE(log->append_marker(7, 0, false, 0, 1, 0, wall_clock_ms()).has_value());  // 6: 7 aborts

  auto committed = h.call<FetchResponse>(fetch(0, 1), 12).responses.at(0).partitions.at(0);
  CHECK(committed.high_watermark == 7);
  CHECK(committed.last_stable_offset == 4);  // producer 8 is undecided
  CHECK(bases(committed) == std::vector<int64_t>{0, 2});
  REQUIRE(committed.aborted_transactions.has_value());
  REQUIRE(committed.aborted_transactions->size() == 1);
  CHECK(committed.aborted_transactions->at(0).producer_id == 7);
  CHECK(committed.aborted_transactions->at(0).first_offset == 2);

  auto uncommitted = h.call<FetchResponse>(fetch(0, 0), 12).responses.at(0).partitions.at(0);
  CHECK(uncommitted.last_stable_offset == 4);
  CHECK(bases(uncommitted) == std::vector<int64_t>{0, 2, 4, 6});
  CHECK_FALSE(uncommitted.aborted_transactions.has_value());

  auto at_lso = h.call<FetchResponse>(fetch(4, 1), 12).responses.at(0).partitions.at(0);
  CHECK(at_lso.error_code == 0);
  CHECK(bases(at_lso).empty());
  CHECK(at_lso.aborted_transactions.has_value());

  CHECK(latest(h, 1) == 4);
  CHECK(latest(h, 0) == 7);
  REQUIRE(log->append_marker(8, 0, true, 0, 1, 0, wall_clock_ms()).has_value());  // 7: 8 commits
  CHECK(latest(h, 1) == 8);
  auto all = h.call<FetchResponse>(fetch(0, 1), 12).responses.at(0).partitions.at(0);
  CHECK(all.last_stable_offset == 8);
  CHECK(bases(all) == std::vector<int64_t>{0, 2, 4, 6, 7});
}

TEST_CASE("DescribeProducers shows the ongoing transaction's start offset and coordinator epoch", "[api][txn]") {
  test::ApiHarness h;
  REQUIRE(outcome(h.logs().create_topic("t", 1)) == storage::LogErrc::kNone);
  auto log = h.logs().get_log("t", 0);
  append(*log, -1);  // 0-1
  append(*log, 7);   // 2-3: open
  append(*log, 8);   // 4-5
  REQUIRE(log->append_marker(8, 0, true, 4, 1, 0, wall_clock_ms()).has_value());
  protocol::DescribeProducersRequest req;
  protocol::DescribeProducersRequest::TopicRequest t;
  t.name = "t";
  t.partition_indexes = {0};
  req.topics.push_back(t);
  auto r = h.call<protocol::DescribeProducersResponse>(req, 0);
  std::map<int64_t, std::pair<int64_t, int32_t>> seen;  // pid -> {txn start, coordinator epoch}
  for (const auto& p : r.topics.at(0).partitions.at(0).active_producers)
    seen[p.producer_id] = {p.current_txn_start_offset, p.coordinator_epoch};
  CHECK(seen[7] == std::pair<int64_t, int32_t>{2, -1});
  CHECK(seen[8] == std::pair<int64_t, int32_t>{-1, 4});
}
