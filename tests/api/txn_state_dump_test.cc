// Kafka's own DumpLogSegments --transaction-log-decoder reads the
// __transaction_state segment the coordinator writes: every state of a
// committed transaction, decoded as Kafka's TransactionLogKey/Value, with no
// error. Needs java and scripts/fetch_kafka_jars.sh (skipped without them,
// failed without them under CI=true).
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "log/log_segment.h"
#include "protocol/generated/add_partitions_to_txn_request.h"
#include "protocol/generated/add_partitions_to_txn_response.h"
#include "protocol/generated/end_txn_request.h"
#include "protocol/generated/end_txn_response.h"
#include "protocol/generated/init_producer_id_request.h"
#include "protocol/generated/init_producer_id_response.h"
#include "tests/api/api_harness.h"
#include "tests/support/kafka_jars.h"

using namespace skiff;

using skiff::test::kafka_jar_dir;
using skiff::test::run;

TEST_CASE("Kafka's DumpLogSegments --transaction-log-decoder reads our __transaction_state", "[api][txn][kafka]") {
  if (!skiff::test::kafka_tools_available()) return;
  const std::string jars = kafka_jar_dir();
  test::ApiHarness h;
  REQUIRE(outcome(h.logs().create_topic("t", 1)) == storage::LogErrc::kNone);
  protocol::InitProducerIdRequest init;
  init.transactional_id = "dump-tx";
  init.transaction_timeout_ms = 60000;
  init.producer_id = -1;
  init.producer_epoch = -1;
  auto id = h.call<protocol::InitProducerIdResponse>(init, 4);
  REQUIRE(id.error_code == 0);
  protocol::AddPartitionsToTxnRequest add;
  add.v3_and_below_transactional_id = "dump-tx";
  add.v3_and_below_producer_id = id.producer_id;
  add.v3_and_below_producer_epoch = id.producer_epoch;
  add.v3_and_below_topics.push_back({"t", {0}, {}});
  REQUIRE(h.call<protocol::AddPartitionsToTxnResponse>(add, 3).results_by_topic_v3_and_below.size() == 1);
  protocol::EndTxnRequest end;
  end.transactional_id = "dump-tx";
  end.producer_id = id.producer_id;
  end.producer_epoch = id.producer_epoch;
  end.committed = true;
  REQUIRE(h.call<protocol::EndTxnResponse>(end, 3).error_code == 0);
  auto state = h.logs().get_log("__transaction_state", 0);
  for (int i = 0; i < 500 && state->log_end_offset().value < 4; ++i)  // Empty, Ongoing, PrepareCommit, CompleteCommit
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  REQUIRE(state->log_end_offset().value == 4);

  const auto file = h.log_dir() / "__transaction_state-0" / storage::segment_file_name(0, ".log");
  int st = 0;
  std::string out = run("java -cp '" + jars +
                            "/*' org.apache.kafka.tools.DumpLogSegments --transaction-log-decoder "
                            "--files " +
                            file.string(),
                        &st);
  INFO(out);
  REQUIRE(st == 0);
  CHECK(out.find("Exception") == std::string::npos);
  CHECK(out.find("key: {\"type\":\"0\",\"data\":{\"transactionalId\":\"dump-tx\"}}") != std::string::npos);
  for (const char* status : {"Empty", "Ongoing", "PrepareCommit", "CompleteCommit"})
    CHECK(out.find(std::string("\"transactionStatus\":\"") + status + "\"") != std::string::npos);
  CHECK(out.find("\"transactionPartitions\":[{\"topic\":\"t\",\"partitionIds\":[0]}]") != std::string::npos);
}
