// KIP-1071's streams-group APIs (88, 89, 93) around the group coordinator,
// as Kafka 4.4's KafkaApis: the topology's internal and invalid topic names
// with Kafka's messages, DESCRIBE on its topics, READ / DESCRIBE on the
// group, the MISSING_INTERNAL_TOPICS detail when CREATE is denied or a
// creation fails, the internal topics created through CreateTopics' path,
// the request checks of API 93, UNSUPPORTED_VERSION at streams.version 0,
// and the streams.* group configs (validation, accessors).
#include <catch2/catch.hpp>

#include "api/handlers/streams_group_support.h"
#include "coordinator/group/group_coordinator.h"
#include "protocol/generated/api_versions_request.h"
#include "protocol/generated/api_versions_response.h"
#include "protocol/generated/create_acls_request.h"
#include "protocol/generated/create_acls_response.h"
#include "protocol/generated/create_topics_response.h"
#include "protocol/generated/incremental_alter_configs_request.h"
#include "protocol/generated/incremental_alter_configs_response.h"
#include "protocol/generated/streams_group_describe_request.h"
#include "protocol/generated/streams_group_describe_response.h"
#include "protocol/generated/streams_group_heartbeat_request.h"
#include "protocol/generated/streams_group_heartbeat_response.h"
#include "protocol/generated/streams_group_topology_description_update_request.h"
#include "protocol/generated/streams_group_topology_description_update_response.h"
#include "tests/api/api_harness.h"
#include "tests/api/handler_calls.h"

using namespace skiff;
using namespace skiff::protocol;
namespace sg = skiff::api::streams_group;

namespace {

using SgTopology = StreamsGroupHeartbeatRequest::Topology;
constexpr int16_t kStreamsInvalidTopology = 130;

SgTopology sg_topology(std::vector<std::string> sources, std::vector<std::string> sinks = {},
                       const std::vector<std::string>& repartition_sources = {},
                       const std::vector<std::string>& changelogs = {}) {
  SgTopology t;
  auto& s = t.subtopologies.emplace_back();
  s.subtopology_id = "0";
  s.source_topics = std::move(sources);
  s.repartition_sink_topics = std::move(sinks);
  for (auto& n : repartition_sources) s.repartition_source_topics.emplace_back().name = n;
  for (auto& n : changelogs) s.state_changelog_topics.emplace_back().name = n;
  return t;
}

StreamsGroupHeartbeatRequest sg_join(const std::string& group, SgTopology topology) {
  StreamsGroupHeartbeatRequest r;
  r.group_id = group;
  r.member_id = "m1";
  r.member_epoch = 0;
  r.rebalance_timeout_ms = 30000;
  r.process_id = "p1";
  r.topology = std::move(topology);
  r.active_tasks.emplace();
  r.standby_tasks.emplace();
  r.warmup_tasks.emplace();
  return r;
}

StreamsGroupTopologyDescriptionUpdateRequest sg_update(std::string group, std::string member) {
  StreamsGroupTopologyDescriptionUpdateRequest r;
  r.group_id = std::move(group);
  r.member_id = std::move(member);
  r.topology_epoch = 1;
  return r;
}

void sg_allow(test::ApiHarness& h, int8_t type, const std::string& name, int8_t op, const std::string& principal) {
  CreateAclsRequest req;
  auto& c = req.creations.emplace_back();
  c.resource_type = type;
  c.resource_name = name;
  c.resource_pattern_type = 3;  // LITERAL
  c.principal = principal;
  c.host = "*";
  c.operation = op;
  c.permission_type = 3;  // ALLOW
  auto resp = h.call<CreateAclsResponse>(req, 3);
  REQUIRE(resp.results.at(0).error_code == 0);
}

int16_t sg_set_config(test::ApiHarness& h, const std::string& group, const std::string& key, const std::string& value,
                      std::optional<std::string>* message = nullptr) {
  IncrementalAlterConfigsRequest req;
  auto& res = req.resources.emplace_back();
  res.resource_type = 32;  // GROUP
  res.resource_name = group;
  auto& c = res.configs.emplace_back();
  c.name = key;
  c.config_operation = 0;  // SET
  c.value = value;
  auto r = h.call<IncrementalAlterConfigsResponse>(req, 1).responses.at(0);
  if (message) *message = r.error_message;
  return r.error_code;
}

group::StreamsHeartbeatResult sg_result_missing(std::vector<group::streams::InternalTopicToCreate> topics) {
  group::StreamsHeartbeatResult r;
  auto& s = r.response.status.emplace().emplace_back();
  s.status_code = sg::kMissingInternalTopicsStatus;
  s.status_detail = "Internal topics are missing: [app-a-changelog]";
  r.to_create = std::move(topics);
  return r;
}

}  // namespace

TEST_CASE("streams topology checks: Kafka's order and messages", "[api][streams]") {
  const auto all = sg::required_topics(sg_topology({"in", "in2"}, {"app-rep"}, {"app-rep", "in"}, {"app-log"}));
  CHECK(all == std::vector<std::string>{"in", "in2", "app-rep", "app-log"});  // each once, first place kept
  auto yes = [](const std::string&) { return true; };
  CHECK_FALSE(sg::topology_refusal(all, yes));

  auto internal = sg::topology_refusal(
      sg::required_topics(sg_topology({"in", "__consumer_offsets"}, {}, {}, {"__share_group_state", "bad name"})), yes);
  REQUIRE(internal);
  CHECK(internal->error == ErrorCode::kStreamsInvalidTopology);
  CHECK(internal->message ==
        "Use of Kafka internal topics __consumer_offsets,__share_group_state in a Kafka Streams topology is "
        "prohibited.");
  auto txn = sg::topology_refusal({"__transaction_state"}, yes);
  REQUIRE(txn);
  CHECK(txn->message == "Use of Kafka internal topics __transaction_state in a Kafka Streams topology is prohibited.");

  auto invalid = sg::topology_refusal({"ok", "bad name", "", std::string(250, 'x'), "..", "b@d"}, yes);
  REQUIRE(invalid);
  CHECK(invalid->error == ErrorCode::kStreamsInvalidTopology);
  CHECK(invalid->message == "Topic names bad name,," + std::string(250, 'x') + ",..,b@d are not valid topic names.");

  auto hidden = sg::topology_refusal(all, [](const std::string& t) { return t != "app-log"; });
  REQUIRE(hidden);
  CHECK(hidden->error == ErrorCode::kTopicAuthorizationFailed);
  CHECK_FALSE(hidden->message);  // Kafka sends none
}

TEST_CASE("streams MISSING_INTERNAL_TOPICS details as Kafka words them", "[api][streams]") {
  StreamsGroupHeartbeatResponse none;
  sg::note_create_denied(none, {"a-changelog", "b-repartition"});
  REQUIRE(none.status);
  REQUIRE(none.status->size() == 1);
  CHECK((*none.status)[0].status_code == 3);
  CHECK((*none.status)[0].status_detail == "Unauthorized to CREATE on topics a-changelog, b-repartition.");

  auto with = sg_result_missing({});
  sg::note_create_denied(with.response, {"a-changelog"});
  REQUIRE(with.response.status->size() == 1);
  CHECK((*with.response.status)[0].status_detail ==
        "Internal topics are missing: [app-a-changelog]; Unauthorized to CREATE on topics a-changelog.");

  auto failed = sg_result_missing({});
  sg::note_creation_failures(failed.response, {{"t1", "e1"}, {"t2", "e2"}, {"t3", "e3"}, {"t4", "e4"}, {"t5", "e5"}});
  CHECK((*failed.response.status)[0].status_detail ==
        "Internal topics are missing: [app-a-changelog]; Creation failed: t1 (e1), t2 (e2), t3 (e3) and 2 more.");
  StreamsGroupHeartbeatResponse no_status;  // only a status the coordinator gave gets the failures
  sg::note_creation_failures(no_status, {{"t1", "e1"}});
  CHECK(no_status.status->empty());
}

TEST_CASE("streams internal topics: created through CreateTopics' path, or none when CREATE is denied",
          "[api][streams]") {
  test::ApiHarness h;
  auto& services = h.components().services();
  group::streams::InternalTopicToCreate changelog{"app-store-changelog", 3, -1, {{"cleanup.policy", "compact"}}};
  group::streams::InternalTopicToCreate repartition{"app-rep-repartition", 2, -1, {{"retention.ms", "-1"}}};

  auto denied = sg_result_missing({changelog, repartition});
  sg::create_internal_topics(
      services, [](const std::string& t) { return t != "app-rep-repartition"; }, "app", denied);
  CHECK((*denied.response.status)[0].status_detail ==
        "Internal topics are missing: [app-a-changelog]; Unauthorized to CREATE on topics app-rep-repartition.");
  CHECK_FALSE(h.logs().topic("app-store-changelog"));  // none created, as Kafka

  auto allowed = sg_result_missing({changelog, repartition});
  sg::create_internal_topics(
      services, [](const std::string&) { return true; }, "app", allowed);
  CHECK((*allowed.response.status)[0].status_detail == "Internal topics are missing: [app-a-changelog]");
  auto made = h.logs().topic("app-store-changelog");
  REQUIRE(made);
  CHECK(made->partitions == 3);
  CHECK(made->overrides.at("cleanup.policy") == "compact");
  REQUIRE(h.logs().topic("app-rep-repartition"));
  CHECK(h.logs().topic("app-rep-repartition")->partitions == 2);

  // Again (another member's heartbeat raced): existing topics are no failure.
  group::streams::InternalTopicToCreate bad{"app-bad-changelog", 1, -1, {{"cleanup.policy", "sideways"}}};
  auto again = sg_result_missing({changelog, bad});
  sg::create_internal_topics(
      services, [](const std::string&) { return true; }, "app", again);
  const auto& detail = (*again.response.status)[0].status_detail;
  CHECK_THAT(detail, Catch::StartsWith("Internal topics are missing: [app-a-changelog]; Creation failed: "
                                       "app-bad-changelog ("));
  CHECK_THAT(detail, !Catch::Contains("app-store-changelog ("));
  CHECK_FALSE(h.logs().topic("app-bad-changelog"));
}

TEST_CASE("streams APIs: advertised with streams.version 1, UNSUPPORTED_VERSION at 0", "[api][streams]") {
  test::ApiHarness h;
  ApiVersionsRequest av;
  av.client_software_name = "t";
  av.client_software_version = "1";
  auto versions = h.call<ApiVersionsResponse>(av, 3);
  auto range = [&](int16_t key) {
    for (const auto& k : versions.api_keys)
      if (k.api_key == key) return std::pair{k.min_version, k.max_version};
    return std::pair<int16_t, int16_t>{-1, -1};
  };
  CHECK(range(88) == std::pair<int16_t, int16_t>{0, 1});
  CHECK(range(89) == std::pair<int16_t, int16_t>{0, 1});
  CHECK(range(93) == std::pair<int16_t, int16_t>{0, 0});
  bool finalized = false;
  for (const auto& f : versions.finalized_features)
    if (f.name == "streams.version") finalized = f.max_version_level == 1;
  CHECK(finalized);

  REQUIRE_FALSE(h.features().apply({{"streams.version", 0, 2}}, false, h.broker().node_id));
  CHECK(h.call<StreamsGroupHeartbeatResponse>(sg_join("app", sg_topology({"in"})), 1).error_code == 35);
  StreamsGroupDescribeRequest d;
  d.group_ids = {"app"};
  auto described = h.call<StreamsGroupDescribeResponse>(d, 1);
  REQUIRE(described.groups.size() == 1);
  CHECK(described.groups[0].error_code == 35);
  CHECK(h.call<StreamsGroupTopologyDescriptionUpdateResponse>(sg_update("app", "m1"), 0).error_code == 35);
}

TEST_CASE("StreamsGroupHeartbeat refuses Kafka's internal and invalid topic names before the coordinator",
          "[api][streams]") {
  test::ApiHarness h;
  auto internal = h.call<StreamsGroupHeartbeatResponse>(sg_join("app", sg_topology({"in", "__consumer_offsets"})), 1);
  CHECK(internal.error_code == kStreamsInvalidTopology);
  CHECK(internal.error_message ==
        "Use of Kafka internal topics __consumer_offsets in a Kafka Streams topology is prohibited.");
  auto invalid = h.call<StreamsGroupHeartbeatResponse>(sg_join("app", sg_topology({"in"}, {"a b", "c/d"})), 0);
  CHECK(invalid.error_code == kStreamsInvalidTopology);
  CHECK(invalid.error_message == "Topic names a b,c/d are not valid topic names.");
}

TEST_CASE("StreamsGroupTopologyDescriptionUpdate and StreamsGroupDescribe: Kafka's request checks", "[api][streams]") {
  test::ApiHarness h;
  auto no_member = h.call<StreamsGroupTopologyDescriptionUpdateResponse>(sg_update("app", "  "), 0);
  CHECK(no_member.error_code == 42);  // INVALID_REQUEST
  CHECK(no_member.error_message == "MemberId can't be empty.");
  auto no_group = h.call<StreamsGroupTopologyDescriptionUpdateResponse>(sg_update("", "m1"), 0);
  CHECK(no_group.error_code == 42);
  CHECK(no_group.error_message == "GroupId can't be empty.");

  StreamsGroupDescribeRequest d;
  d.group_ids = {""};
  auto described = h.call<StreamsGroupDescribeResponse>(d, 0);
  REQUIRE(described.groups.size() == 1);
  CHECK(described.groups[0].group_id.empty());
  CHECK(described.groups[0].error_code == 24);  // INVALID_GROUP_ID
}

TEST_CASE("streams APIs with an authorizer: READ / DESCRIBE on the group, DESCRIBE on the topology's topics",
          "[api][streams][acl]") {
  test::ApiHarness h(
      {"authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer", "super.users=User:admin"});
  constexpr int8_t kTopic = 2, kGroup = 3, kRead = 3, kDescribe = 8;
  h.set_principal("User:admin");
  sg_allow(h, kGroup, "app", kRead, "User:s");
  sg_allow(h, kTopic, "in", kDescribe, "User:s");
  h.set_principal("User:s");

  CHECK(h.call<StreamsGroupHeartbeatResponse>(sg_join("other", sg_topology({"in"})), 1).error_code == 30);
  auto hidden = h.call<StreamsGroupHeartbeatResponse>(sg_join("app", sg_topology({"in"}, {}, {}, {"app-log"})), 1);
  CHECK(hidden.error_code == 29);  // TOPIC_AUTHORIZATION_FAILED
  CHECK_FALSE(hidden.error_message);
  // Names are checked before DESCRIBE, as Kafka.
  CHECK(h.call<StreamsGroupHeartbeatResponse>(sg_join("app", sg_topology({"__transaction_state"})), 1).error_code ==
        kStreamsInvalidTopology);
  CHECK(h.call<StreamsGroupTopologyDescriptionUpdateResponse>(sg_update("other", "m1"), 0).error_code == 30);

  StreamsGroupDescribeRequest d;
  d.group_ids = {"app", "other"};
  auto described = h.call<StreamsGroupDescribeResponse>(d, 1);
  REQUIRE(described.groups.size() == 2);
  CHECK(described.groups[1].group_id == "other");
  CHECK(described.groups[1].error_code == 30);  // GROUP_AUTHORIZATION_FAILED, that group only
  CHECK(described.groups[0].error_code != 30);
}

TEST_CASE("streams group configs: Kafka's validation, the coordinator's values", "[api][streams][config]") {
  test::ApiHarness h({"group.streams.max.standby.replicas=3"});
  auto& groups = *h.components().services().groups;
  CHECK(groups.streams_session_timeout_ms("app") == 45000);
  CHECK(groups.streams_heartbeat_interval_ms("app") == 5000);
  CHECK(groups.streams_num_standby_replicas("app") == 0);
  CHECK(groups.streams_initial_rebalance_delay_ms("app") == 0);

  CHECK(sg_set_config(h, "app", "streams.session.timeout.ms", "50000") == 0);
  CHECK(sg_set_config(h, "app", "streams.num.standby.replicas", "3") == 0);
  CHECK(groups.streams_session_timeout_ms("app") == 50000);
  CHECK(groups.streams_num_standby_replicas("app") == 3);
  CHECK(sg_set_config(h, "app", "streams.initial.rebalance.delay.ms", "2500") == 0);
  CHECK(groups.streams_initial_rebalance_delay_ms("app") == 2500);

  std::optional<std::string> why;
  CHECK(sg_set_config(h, "app", "streams.num.standby.replicas", "4", &why) == 40);
  CHECK(why == "streams.num.standby.replicas must be less than or equal to 3");
  CHECK(sg_set_config(h, "app", "streams.num.standby.replicas", "-1", &why) == 40);
  CHECK(why == "Invalid value -1 for configuration streams.num.standby.replicas: Value must be at least 0");
  CHECK(sg_set_config(h, "app", "streams.heartbeat.interval.ms", "20000", &why) == 40);
  CHECK(why == "streams.heartbeat.interval.ms must be in the range 5000 to 15000 inclusive.");
  CHECK(sg_set_config(h, "b", "streams.session.timeout.ms", "45000") == 0);
  CHECK(sg_set_config(h, "b", "streams.heartbeat.interval.ms", "15000") == 0);
  CHECK(groups.streams_heartbeat_interval_ms("b") == 15000);
  CHECK(sg_set_config(h, "app", "streams.num.warmup.replicas", "21", &why) == 40);
  CHECK(why == "streams.num.warmup.replicas must be less than or equal to 20");

  auto described = test::describe_config(h, 32, "app");
  const auto* standby = test::find_config(described.configs, "streams.num.standby.replicas");
  REQUIRE(standby);
  CHECK(standby->value == "3");
  auto fresh = test::describe_config(h, 32, "fresh");
  const auto* delay = test::find_config(fresh.configs, "streams.initial.rebalance.delay.ms");
  REQUIRE(delay);
  CHECK(delay->value == "0");
  REQUIRE(delay->synonyms.size() == 1);
  CHECK(delay->synonyms[0].name == "group.streams.initial.rebalance.delay.ms");
}
