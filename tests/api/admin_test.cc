// Admin APIs through KafkaApis: CreateTopics, DeleteTopics, CreatePartitions,
// DescribeConfigs, AlterConfigs, IncrementalAlterConfigs, DeleteRecords,
// DescribeCluster, DescribeLogDirs, DescribeTopicPartitions.
#include "log/batch_builder.h"
#include "log/checkpoint_file.h"
#include "protocol/generated/alter_configs_request.h"
#include "protocol/generated/alter_configs_response.h"
#include "protocol/generated/create_partitions_request.h"
#include "protocol/generated/create_partitions_response.h"
#include "protocol/generated/create_topics_request.h"
#include "protocol/generated/create_topics_response.h"
#include "protocol/generated/delete_records_request.h"
#include "protocol/generated/delete_records_response.h"
#include "protocol/generated/delete_topics_request.h"
#include "protocol/generated/delete_topics_response.h"
#include "protocol/generated/describe_cluster_request.h"
#include "protocol/generated/describe_cluster_response.h"
#include "protocol/generated/describe_configs_request.h"
#include "protocol/generated/describe_configs_response.h"
#include "protocol/generated/describe_log_dirs_request.h"
#include "protocol/generated/describe_log_dirs_response.h"
#include "protocol/generated/describe_topic_partitions_request.h"
#include "protocol/generated/describe_topic_partitions_response.h"
#include "protocol/generated/incremental_alter_configs_request.h"
#include "protocol/generated/incremental_alter_configs_response.h"
#include "tests/api/api_harness.h"
#include "tests/api/handler_calls.h"

using namespace skiff;
using namespace skiff::protocol;

namespace {

int16_t produce_some(test::ApiHarness& h, const std::string& topic, int n);

}  // namespace

#include "protocol/generated/produce_request.h"
#include "protocol/generated/produce_response.h"

namespace {
int16_t produce_some(test::ApiHarness& h, const std::string& topic, int n) {
  ProduceRequest req;
  req.acks = 1;
  req.timeout_ms = 1000;
  ProduceRequest::TopicProduceData t;
  t.name = topic;
  ProduceRequest::PartitionProduceData p;
  p.index = 0;
  auto bytes = storage::make_test_batch(n, 100, wall_clock_ms());
  p.records = Records::bytes(bytes);
  t.partition_data.push_back(p);
  req.topic_data.push_back(t);
  return h.call<ProduceResponse>(req, 9).responses.at(0).partition_responses.at(0).error_code;
}
}  // namespace

TEST_CASE("CreateTopics: partitions, configs, validate_only, replication factor", "[api][admin]") {
  test::ApiHarness h;
  for (int16_t v : {2, 4, 5, 7}) {
    std::string name = "t" + std::to_string(v);
    auto r = h.call<CreateTopicsResponse>(test::create_topics_request(name, 3, 1, {{"retention.ms", "1234"}}), v);
    REQUIRE(r.topics.size() == 1);
    CHECK(r.topics[0].error_code == 0);
    auto topic = h.logs().topic(name);
    REQUIRE(topic);
    CHECK(topic->partitions == 3);
    CHECK(h.logs().topic_config(name)->retention_ms == 1234);
    if (v >= 5) {
      CHECK(r.topics[0].num_partitions == 3);
      CHECK(r.topics[0].replication_factor == 1);
      REQUIRE(r.topics[0].configs);
      bool found = false;
      for (auto& c : *r.topics[0].configs)
        if (c.name == "retention.ms") found = c.value == "1234" && c.config_source == 1;
      CHECK(found);
    }
  }
  SECTION("already exists") {
    CHECK(h.call<CreateTopicsResponse>(test::create_topics_request("t7", 1, 1), 7).topics[0].error_code == 36);
  }
  SECTION("-1 partitions and replication factor use the broker defaults") {
    auto r = h.call<CreateTopicsResponse>(test::create_topics_request("defaults", -1, -1), 7);
    CHECK(r.topics[0].error_code == 0);
    CHECK(r.topics[0].num_partitions == 1);
  }
  SECTION("validate_only creates nothing") {
    CHECK(h.call<CreateTopicsResponse>(test::create_topics_request("dry", 2, 1, {}, true), 7).topics[0].error_code ==
          0);
    CHECK(!h.logs().topic("dry"));
  }
  SECTION("replication factor 3: INVALID_REPLICATION_FACTOR") {
    auto r = h.call<CreateTopicsResponse>(test::create_topics_request("rf3", 1, 3), 7);
    CHECK(r.topics[0].error_code == 38);
    CHECK(r.topics[0].error_message.value_or("").find("skiff.accept.replication.factor.enable") != std::string::npos);
  }
  SECTION("bad config: INVALID_CONFIG; bad name: INVALID_TOPIC_EXCEPTION; 0 partitions: INVALID_PARTITIONS") {
    CHECK(h.call<CreateTopicsResponse>(test::create_topics_request("c", 1, 1, {{"retention.ms", "soon"}}), 7)
              .topics[0]
              .error_code == 40);
    CHECK(h.call<CreateTopicsResponse>(test::create_topics_request("c", 1, 1, {{"no.such.config", "1"}}), 7)
              .topics[0]
              .error_code == 40);
    CHECK(h.call<CreateTopicsResponse>(test::create_topics_request("bad/name", 1, 1), 7).topics[0].error_code == 17);
    CHECK(h.call<CreateTopicsResponse>(test::create_topics_request("zero", 0, 1), 7).topics[0].error_code == 37);
  }
}

TEST_CASE("CreateTopics accepts a larger replication factor as 1 when told to", "[api][admin]") {
  test::ApiHarness h({"skiff.accept.replication.factor.enable=true"});
  auto r = h.call<CreateTopicsResponse>(test::create_topics_request("rf3", 2, 3), 7);
  CHECK(r.topics[0].error_code == 0);
  CHECK(r.topics[0].replication_factor == 1);
  CHECK(h.logs().topic("rf3"));
}

TEST_CASE("DeleteTopics by name and by id, and the name is reusable at once", "[api][admin]") {
  test::ApiHarness h;
  REQUIRE(h.call<CreateTopicsResponse>(test::create_topics_request("gone", 2, 1), 7).topics[0].error_code == 0);
  REQUIRE(produce_some(h, "gone", 5) == 0);
  auto dir = h.logs().get_log("gone", 0)->dir();
  REQUIRE(std::filesystem::exists(dir));

  DeleteTopicsRequest by_name;
  by_name.topic_names = {"gone", "never-was"};
  auto r = h.call<DeleteTopicsResponse>(by_name, 4);
  REQUIRE(r.responses.size() == 2);
  CHECK(r.responses[0].error_code == 0);
  CHECK(r.responses[1].error_code == 3);
  CHECK(!std::filesystem::exists(dir));
  CHECK(!h.logs().topic("gone"));

  // Re-created at once, empty.
  REQUIRE(h.call<CreateTopicsResponse>(test::create_topics_request("gone", 1, 1), 7).topics[0].error_code == 0);
  CHECK(h.logs().get_log("gone", 0)->log_end_offset().value == 0);

  auto id = h.logs().topic("gone")->topic_id;
  DeleteTopicsRequest by_id;
  DeleteTopicsRequest::DeleteTopicState s;
  s.name = std::nullopt;
  std::memcpy(s.topic_id.bytes.data(), id.bytes.data(), id.bytes.size());
  by_id.topics.push_back(s);
  auto r6 = h.call<DeleteTopicsResponse>(by_id, 6);
  REQUIRE(r6.responses.size() == 1);
  CHECK(r6.responses[0].error_code == 0);
  CHECK(r6.responses[0].name == std::optional<std::string>("gone"));
  CHECK(!h.logs().topic("gone"));
}

TEST_CASE("CreatePartitions grows a topic and lists every topic in the answer", "[api][admin]") {
  test::ApiHarness h;
  REQUIRE(h.call<CreateTopicsResponse>(test::create_topics_request("grow", 1, 1), 7).topics[0].error_code == 0);
  CreatePartitionsRequest req;
  CreatePartitionsRequest::CreatePartitionsTopic t;
  t.name = "grow";
  t.count = 4;
  t.assignments = std::nullopt;
  req.topics.push_back(t);
  t.name = "missing";
  req.topics.push_back(t);
  for (int16_t v : {0, 3}) {
    auto r = h.call<CreatePartitionsResponse>(req, v);
    REQUIRE(r.results.size() == 2);
    CHECK(r.results[0].error_code == (v == 0 ? 0 : 37));  // the second time it already has 4
    CHECK(r.results[1].error_code == 3);
  }
  CHECK(h.logs().topic("grow")->partitions == 4);
}

TEST_CASE("DescribeConfigs lists every topic and broker config with sources and synonyms", "[api][admin]") {
  test::ApiHarness h({"log.retention.ms=5000"});
  auto created =
      h.call<CreateTopicsResponse>(test::create_topics_request("cfg", 1, 1, {{"segment.bytes", "2000000"}}), 7);
  REQUIRE(created.topics[0].error_code == 0);
  for (int16_t v : {1, 2, 3, 4}) {
    auto r = test::describe_config(h, 2, "cfg", v);
    CHECK(r.error_code == 0);
    CHECK(r.configs.size() >= 30);
    auto* seg = test::find_config(r.configs, "segment.bytes");
    REQUIRE(seg);
    CHECK(seg->value == "2000000");
    CHECK(seg->config_source == 1);  // TOPIC_CONFIG
    auto* ret = test::find_config(r.configs, "retention.ms");
    REQUIRE(ret);
    CHECK(ret->value == "5000");
    CHECK(ret->config_source == 4);  // STATIC_BROKER_CONFIG
    REQUIRE(!ret->synonyms.empty());
    CHECK(ret->synonyms[0].name == "log.retention.ms");
    auto* cleanup = test::find_config(r.configs, "cleanup.policy");
    REQUIRE(cleanup);
    CHECK(cleanup->value == "delete");
    CHECK(cleanup->config_source == 5);  // DEFAULT_CONFIG
  }
  CHECK(test::describe_config(h, 2, "nope").error_code == 3);
  auto b = test::describe_config(h, 4, "1");
  CHECK(b.error_code == 0);
  auto* nodeid = test::find_config(b.configs, "node.id");
  REQUIRE(nodeid);
  CHECK(nodeid->value == "1");
  CHECK(nodeid->read_only);
  CHECK(test::describe_config(h, 4, "").error_code == 0);
  CHECK(test::describe_config(h, 4, "7").error_code != 0);
}

TEST_CASE("AlterConfigs and IncrementalAlterConfigs change topic configs live and persistently", "[api][admin]") {
  test::ApiHarness h;
  REQUIRE(h.call<CreateTopicsResponse>(test::create_topics_request("alt", 1, 1, {{"retention.ms", "1000"}}), 7)
              .topics[0]
              .error_code == 0);

  IncrementalAlterConfigsRequest inc;
  IncrementalAlterConfigsRequest::AlterConfigsResource res;
  res.resource_type = 2;
  res.resource_name = "alt";
  IncrementalAlterConfigsRequest::AlterableConfig set;
  set.name = "max.message.bytes";
  set.config_operation = 0;
  set.value = "2048";
  IncrementalAlterConfigsRequest::AlterableConfig append;
  append.name = "cleanup.policy";
  append.config_operation = 2;
  append.value = "compact";
  res.configs = {set, append};
  inc.resources.push_back(res);
  auto r = h.call<IncrementalAlterConfigsResponse>(inc, 1);
  REQUIRE(r.responses.size() == 1);
  CHECK(r.responses[0].error_code == 0);
  CHECK(h.logs().get_log("alt", 0)->config()->max_message_bytes == 2048);  // live
  CHECK(h.logs().get_log("alt", 0)->config()->retention_ms == 1000);       // kept
  auto described = test::describe_config(h, 2, "alt");
  CHECK(described.error_code == 0);
  auto* cleanup = test::find_config(described.configs, "cleanup.policy");
  REQUIRE(cleanup);
  CHECK(cleanup->value == "delete,compact");

  SECTION("a bad value is refused and nothing changes") {
    inc.resources[0].configs = {set};
    inc.resources[0].configs[0].value = "lots";
    CHECK(h.call<IncrementalAlterConfigsResponse>(inc, 0).responses[0].error_code == 40);
    CHECK(h.logs().get_log("alt", 0)->config()->max_message_bytes == 2048);
  }
  SECTION("AlterConfigs replaces every override; it survives a restart") {
    AlterConfigsRequest alt;
    AlterConfigsRequest::AlterConfigsResource ar;
    ar.resource_type = 2;
    ar.resource_name = "alt";
    AlterConfigsRequest::AlterableConfig c;
    c.name = "segment.ms";
    c.value = "60000";
    ar.configs = {c};
    alt.resources.push_back(ar);
    CHECK(h.call<AlterConfigsResponse>(alt, 2).responses.at(0).error_code == 0);
    h.restart();
    auto cfg = h.logs().get_log("alt", 0)->config();
    CHECK(cfg->segment_ms == 60000);
    CHECK(cfg->retention_ms != 1000);  // override gone
    auto after = test::describe_config(h, 2, "alt");
    REQUIRE(test::find_config(after.configs, "segment.ms"));
    CHECK(test::find_config(after.configs, "segment.ms")->config_source == 1);
  }
  // Broker configs: tests/api/dynamic_broker_config_test.cc.
}

TEST_CASE("DeleteRecords moves the log start offset and checkpoints it", "[api][admin]") {
  test::ApiHarness h;
  REQUIRE(produce_some(h, "dr", 10) == 0);
  DeleteRecordsRequest req;
  DeleteRecordsRequest::DeleteRecordsTopic t;
  t.name = "dr";
  DeleteRecordsRequest::DeleteRecordsPartition p;
  p.partition_index = 0;
  p.offset = 4;
  t.partitions = {p};
  p.partition_index = 9;
  t.partitions.push_back(p);
  req.topics.push_back(t);
  auto r = h.call<DeleteRecordsResponse>(req, 2);
  CHECK(r.topics.at(0).partitions.at(0).error_code == 0);
  CHECK(r.topics[0].partitions[0].low_watermark == 4);
  CHECK(r.topics[0].partitions.at(1).error_code == 3);
  CHECK(h.logs().get_log("dr", 0)->log_start_offset().value == 4);
  auto dir = h.logs().get_log("dr", 0)->dir().parent_path();
  auto ck = storage::read_offset_checkpoint(dir / storage::kLogStartOffsetCheckpointFile);
  CHECK(ck[storage::TopicPartition{"dr", 0}] == 4);
  req.topics[0].partitions = {p};
  req.topics[0].partitions[0].partition_index = 0;
  req.topics[0].partitions[0].offset = 99;
  CHECK(h.call<DeleteRecordsResponse>(req, 0).topics[0].partitions[0].error_code == 1);  // beyond the end
}

TEST_CASE("DescribeCluster, DescribeLogDirs, DescribeTopicPartitions", "[api][admin]") {
  test::ApiHarness h;
  REQUIRE(h.call<CreateTopicsResponse>(test::create_topics_request("a", 3, 1), 7).topics[0].error_code == 0);
  REQUIRE(h.call<CreateTopicsResponse>(test::create_topics_request("b", 2, 1), 7).topics[0].error_code == 0);
  REQUIRE(produce_some(h, "a", 3) == 0);

  auto c = h.call<DescribeClusterResponse>(DescribeClusterRequest{}, 1);
  CHECK(c.error_code == 0);
  REQUIRE(c.brokers.size() == 1);
  CHECK(c.brokers[0].host == "broker.test");
  CHECK(c.controller_id == 1);
  CHECK(c.cluster_id == h.logs().cluster_id());

  DescribeLogDirsRequest ld;
  ld.topics = std::nullopt;
  auto d = h.call<DescribeLogDirsResponse>(ld, 4);
  REQUIRE(d.results.size() == 1);
  CHECK(d.results[0].topics.size() == 2);
  CHECK(d.results[0].total_bytes > 0);
  int64_t size_a0 = -1;
  for (auto& t : d.results[0].topics)
    for (auto& p : t.partitions)
      if (t.name == "a" && p.partition_index == 0) size_a0 = p.partition_size;
  CHECK(size_a0 > 0);

  DescribeTopicPartitionsRequest dt;
  dt.response_partition_limit = 4;
  auto first = h.call<DescribeTopicPartitionsResponse>(dt, 0);
  REQUIRE(first.topics.size() == 2);
  CHECK(first.topics[0].partitions.size() == 3);
  CHECK(first.topics[1].partitions.size() == 1);
  REQUIRE(first.next_cursor);
  dt.cursor.emplace();
  dt.cursor->topic_name = first.next_cursor->topic_name;
  dt.cursor->partition_index = first.next_cursor->partition_index;
  auto rest = h.call<DescribeTopicPartitionsResponse>(dt, 0);
  REQUIRE(rest.topics.size() == 1);
  CHECK(rest.topics[0].partitions.size() == 1);
  CHECK(rest.topics[0].partitions[0].partition_index == 1);
  CHECK(!rest.next_cursor);
}

#include "protocol/generated/fetch_request.h"
#include "protocol/generated/fetch_response.h"

namespace {

// A response frame (without its size) read as Resp at `version`: nullopt
// unless the header (correlation id 7, as ApiHarness::start sends) and the
// body decode and use every byte. Record views point into `bytes`.
template <class Resp>
std::optional<Resp> decode_whole(const std::vector<uint8_t>& bytes, int16_t version) {
  try {
    protocol::ByteReader reader(bytes);
    protocol::ResponseHeader hdr;
    hdr.decode(reader, protocol::response_header_version(Resp::kApiKey, version));
    Resp resp;
    resp.decode(reader, version);
    if (hdr.correlation_id == 7 && reader.remaining() == 0) return resp;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

}  // namespace

TEST_CASE("DeleteTopics answers fetches waiting on the topic at once", "[api][admin]") {
  test::ApiHarness h;
  REQUIRE(produce_some(h, "waited", 2) == 0);
  FetchRequest req;
  req.max_wait_ms = 30000;
  req.min_bytes = 1;
  req.max_bytes = 1 << 20;
  FetchRequest::FetchTopic ft;
  ft.topic = "waited";
  FetchRequest::FetchPartition fp;
  fp.partition = 0;
  fp.fetch_offset = 2;
  fp.partition_max_bytes = 1 << 20;
  ft.partitions.push_back(fp);
  req.topics.push_back(ft);
  auto started = std::chrono::steady_clock::now();
  h.start(req, 12);
  CHECK_FALSE(h.wait(std::chrono::milliseconds(100)).has_value());  // parked
  DeleteTopicsRequest del;
  del.topic_names = {"waited"};
  h.start(del, 4);
  int fetches = 0, deletes = 0;
  for (int i = 0; i < 2; ++i) {
    auto r = h.wait(std::chrono::seconds(5));
    REQUIRE(r.has_value());
    auto bytes = test::flatten(*r);
    // Both are flexible versions with correlation id 7: told apart by which
    // of the two decodes the whole answer.
    auto fetch = decode_whole<FetchResponse>(bytes, 12);
    auto deleted = decode_whole<DeleteTopicsResponse>(bytes, 4);
    REQUIRE(fetch.has_value() != deleted.has_value());
    if (fetch) {
      ++fetches;
      REQUIRE(fetch->responses.size() == 1);
      CHECK(fetch->responses[0].topic == "waited");
      REQUIRE(fetch->responses[0].partitions.size() == 1);
      CHECK(fetch->responses[0].partitions[0].error_code == 3);  // UNKNOWN_TOPIC_OR_PARTITION
    } else {
      ++deletes;
      REQUIRE(deleted->responses.size() == 1);
      CHECK(deleted->responses[0].name == std::optional<std::string>("waited"));
      CHECK(deleted->responses[0].error_code == 0);
    }
  }
  CHECK(fetches == 1);
  CHECK(deletes == 1);
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(5));
}
