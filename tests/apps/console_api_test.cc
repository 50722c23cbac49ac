// The web console's JSON API (apps/console/, docs/console-api.md) over a
// real KafkaApis in-process (tests/api/api_harness.h): each endpoint's
// answer, the read-only switch, the JSON content type, and HTTP Basic
// logins through the broker's own PLAIN and SCRAM exchanges.
#include <algorithm>
#include <catch2/catch.hpp>

#include "apps/console/console_service.h"
#include "common/base64.h"
#include "common/json.h"
#include "protocol/generated/offset_commit_request.h"
#include "protocol/generated/offset_commit_response.h"
#include "protocol/generated/share_group_heartbeat_request.h"
#include "protocol/generated/share_group_heartbeat_response.h"
#include "protocol/generated/streams_group_heartbeat_request.h"
#include "protocol/generated/streams_group_heartbeat_response.h"
#include "protocol/generated/streams_group_topology_description_update_request.h"
#include "protocol/generated/streams_group_topology_description_update_response.h"
#include "tests/api/api_harness.h"
#include "tests/coordinator/group/share_group_support.h"

namespace skiff::console {
namespace {

class Console {
 public:
  explicit Console(std::vector<std::string> overrides = {}) : harness_(overrides) {
    overrides.push_back("log.dirs=" + harness_.log_dir().string());
    config_ = config::load_config({std::nullopt, {}, overrides});
    info_.cluster_id = "c";
    info_.endpoints.push_back({"PLAINTEXT", "127.0.0.1", 9092});
    ConsoleBroker broker;
    broker.info = &info_;
    broker.version = "test";
    broker.share_in_flight = [this](const std::string& group) {
      return share_in_flight ? share_in_flight(group) : ShareInFlight{};
    };
    service_ = std::make_unique<ConsoleService>(harness_.apis(), harness_.components().sasl_mechanisms(), config_,
                                                std::move(broker));
  }

  network::HttpResponse get(const std::string& path, std::map<std::string, std::string> query = {}) {
    return call("GET", path, std::move(query), "");
  }
  network::HttpResponse post(const std::string& path, const std::string& body,
                             const std::string& type = "application/json") {
    return call("POST", path, {}, body, type);
  }
  JsonValue ok(const network::HttpResponse& r, int status = 200) {
    INFO(r.body);
    REQUIRE(r.status == status);
    auto v = parse_json(r.body);
    REQUIRE(v);
    return *v;
  }
  std::string authorization;
  std::function<ShareInFlight(const std::string&)> share_in_flight;  // the broker's view of a share group
  test::ApiHarness& harness() { return harness_; }

 private:
  network::HttpResponse call(std::string method, const std::string& path, std::map<std::string, std::string> query,
                             std::string body, std::string type = "application/json") {
    network::HttpRequest r;
    r.method = std::move(method);
    r.path = path;
    r.target = path;
    r.query = std::move(query);
    r.body = std::move(body);
    r.content_type = std::move(type);
    r.authorization = authorization;
    for (const auto& [name, ep] : table())
      if (name == r.method + " " + path) return service_->answer(r, ep.first, ep.second);
    FAIL("no endpoint " << path);
    return {};
  }
  static const std::map<std::string, std::pair<Endpoint, bool>>& table() {
    static const std::map<std::string, std::pair<Endpoint, bool>> t{
        {"GET /api/overview", {overview, false}},
        {"GET /api/topics", {list_topics, false}},
        {"GET /api/topic", {describe_topic, false}},
        {"POST /api/topics/create", {create_topic, true}},
        {"POST /api/topics/delete", {delete_topic, true}},
        {"POST /api/topic/configs", {alter_topic_configs, true}},
        {"GET /api/messages", {browse_messages, false}},
        {"POST /api/messages/produce", {produce_message, true}},
        {"GET /api/groups", {list_groups, false}},
        {"GET /api/group", {describe_group, false}},
        {"POST /api/group/reset", {reset_group_offsets, true}},
        {"POST /api/group/delete", {delete_group, true}},
    };
    return t;
  }

  test::ApiHarness harness_;
  config::BrokerConfig config_;
  api::BrokerInfo info_;
  std::unique_ptr<ConsoleService> service_;
};

std::string decoded(const JsonValue& v) {
  return v.kind == JsonValue::Kind::kNull ? "<null>" : *base64_decode(v.string);
}

void produce(Console& c, const std::string& key, const std::string& value, int partition = -1) {
  c.ok(c.post("/api/messages/produce", R"({"topic":"t","key":")" + key + R"(","value":")" + value +
                                           R"(","partition":)" + std::to_string(partition) + "}"));
}

TEST_CASE("console: create a topic, produce, browse newest and oldest, find by key", "[console]") {
  Console c;
  c.ok(c.post("/api/topics/create", R"({"name":"t","partitions":2,"configs":{"retention.ms":"86400000"}})"), 201);
  CHECK(c.post("/api/topics/create", R"({"name":"t","partitions":2})").status == 409);
  for (int i = 0; i < 5; ++i) produce(c, "k" + std::to_string(i), "v" + std::to_string(i), 0);
  produce(c, "other", "x", 1);

  auto newest = c.ok(c.get("/api/messages", {{"topic", "t"}, {"partition", "0"}, {"limit", "2"}}));
  const auto& m = newest.find("messages")->array;
  REQUIRE(m.size() == 2);
  CHECK(m[0].find("offset")->number == 4);
  CHECK(decoded(*m[0].find("value_b64")) == "v4");
  CHECK(m[1].find("offset")->number == 3);

  auto oldest = c.ok(c.get("/api/messages",
                           {{"topic", "t"}, {"partition", "0"}, {"order", "oldest"}, {"offset", "1"}, {"limit", "2"}}));
  REQUIRE(oldest.find("messages")->array.size() == 2);
  CHECK(oldest.find("messages")->array[0].find("offset")->number == 1);

  auto by_key = c.ok(c.get("/api/messages", {{"topic", "t"}, {"key", "k2"}}));
  REQUIRE(by_key.find("messages")->array.size() == 1);
  CHECK(decoded(*by_key.find("messages")->array[0].find("key_b64")) == "k2");

  auto all = c.ok(c.get("/api/messages", {{"topic", "t"}}));
  CHECK(all.find("messages")->array.size() == 6);

  auto topics = c.ok(c.get("/api/topics"));
  REQUIRE(topics.find("topics")->array.size() == 1);
  CHECK(topics.find("topics")->array[0].find("messages")->number == 6);
  CHECK(topics.find("topics")->array[0].find("size_bytes")->number > 0);

  auto topic = c.ok(c.get("/api/topic", {{"name", "t"}}));
  CHECK(topic.find("partitions")->array[0].find("high_watermark")->number == 5);
  CHECK(topic.find("partitions")->array[0].find("last_stable_offset")->number == 5);
  // Not tiered: everything is local, nothing in remote storage (ListOffsets -4, -5).
  CHECK(topic.find("partitions")->array[0].find("local_log_start_offset")->number == 0);
  CHECK(topic.find("partitions")->array[0].find("remote_end_offset")->number == -1);
  CHECK(c.get("/api/topic", {{"name", "nope"}}).status == 404);
  CHECK(c.get("/api/messages", {{"topic", "t"}, {"limit", "501"}}).status == 400);
}

TEST_CASE("console: a key's partition is the Java producer's", "[console]") {
  Console c;
  c.ok(c.post("/api/topics/create", R"({"name":"t","partitions":3})"), 201);
  auto r = c.ok(c.post("/api/messages/produce", R"({"topic":"t","key":"a-little-bit-long-string","value":"v"})"));
  CHECK(r.find("partition")->number == 2);  // kafka-clients 4.4.0: toPositive(murmur2) % 3
}

TEST_CASE("console: topic configs are set and deleted, the topic is deleted", "[console]") {
  Console c;
  c.ok(c.post("/api/topics/create", R"({"name":"t","partitions":1})"), 201);
  c.ok(c.post("/api/topic/configs", R"({"name":"t","set":{"retention.ms":"1234"}})"));
  auto value_of = [&](const char* name) {
    const auto topic = c.ok(c.get("/api/topic", {{"name", "t"}}));
    for (const auto& e : topic.find("configs")->array)
      if (e.find("name")->string == name) return e.find("value")->string + "/" + e.find("source")->string;
    return std::string();
  };
  CHECK(value_of("retention.ms") == "1234/DYNAMIC_TOPIC_CONFIG");
  c.ok(c.post("/api/topic/configs", R"({"name":"t","delete":["retention.ms"]})"));
  CHECK(value_of("retention.ms") == "604800000/DEFAULT_CONFIG");
  CHECK(c.post("/api/topic/configs", R"({"name":"t","set":{"retention.ms":"x"}})").status == 400);
  c.ok(c.post("/api/topics/delete", R"({"name":"t"})"));
  CHECK(c.get("/api/topic", {{"name", "t"}}).status == 404);
}

TEST_CASE("console: group lag, a reset of an empty group, and its deletion", "[console]") {
  Console c;
  c.ok(c.post("/api/topics/create", R"({"name":"t","partitions":1})"), 201);
  for (int i = 0; i < 4; ++i) produce(c, "k", "v", 0);
  protocol::OffsetCommitRequest commit;
  commit.group_id = "g";
  commit.generation_id_or_member_epoch = -1;
  auto& t = commit.topics.emplace_back();
  t.name = "t";
  t.partitions.emplace_back().committed_offset = 3;
  c.harness().call<protocol::OffsetCommitResponse>(commit, 8);

  auto groups = c.ok(c.get("/api/groups"));
  REQUIRE(groups.find("groups")->array.size() == 1);
  CHECK(groups.find("groups")->array[0].find("lag")->number == 1);
  CHECK(groups.find("groups")->array[0].find("members")->number == 0);
  auto group = c.ok(c.get("/api/group", {{"id", "g"}}));
  CHECK(group.find("state")->string == "Empty");
  CHECK(group.find("offsets")->array[0].find("committed")->number == 3);

  auto reset = c.ok(c.post("/api/group/reset", R"({"id":"g","to":"earliest"})"));
  CHECK(reset.find("offsets")->array[0].find("offset")->number == 0);
  CHECK(c.ok(c.get("/api/group", {{"id", "g"}})).find("offsets")->array[0].find("lag")->number == 4);
  CHECK(c.post("/api/group/reset", R"({"id":"g","to":"yesterday"})").status == 400);
  CHECK(c.post("/api/group/reset", R"({"id":"nope","to":"latest"})").status == 404);
  c.ok(c.post("/api/group/delete", R"({"id":"g"})"));
  CHECK(c.ok(c.get("/api/groups")).find("groups")->array.empty());
}

// A share group's member, over the ShareStateInitializer `port` answering at once.
struct ShareRig {
  Console c{{"group.share.assignment.interval.ms=0"}};
  test::FakeShareState port;
  group::GroupCoordinator& groups = *c.harness().components().services().groups;
  ShareRig() { groups.set_share_state(&port); }
  ~ShareRig() { groups.set_share_state(nullptr); }
  protocol::ShareGroupHeartbeatResponse beat(int32_t epoch, std::optional<std::vector<std::string>> topics = {}) {
    protocol::ShareGroupHeartbeatRequest req;
    req.group_id = "sg";
    req.member_id = "m-1";
    req.member_epoch = epoch;
    req.subscribed_topic_names = std::move(topics);
    return c.harness().call<protocol::ShareGroupHeartbeatResponse>(req, 1);
  }
};

TEST_CASE("console: a share group's members, assignment, start offset, in-flight records and lag", "[console]") {
  ShareRig rig;
  Console& c = rig.c;
  c.ok(c.post("/api/topics/create", R"({"name":"t","partitions":1})"), 201);
  for (int i = 0; i < 4; ++i) produce(c, "k", "v", 0);
  REQUIRE(rig.beat(0, std::vector<std::string>{"t"}).error_code == 0);
  REQUIRE(rig.beat(1).error_code == 0);  // assigned t-0; its state initialized at offset 0
  c.share_in_flight = [](const std::string& group) {
    return group == "sg" ? ShareInFlight{{{"t", 0}, 2}} : ShareInFlight{};
  };

  auto groups = c.ok(c.get("/api/groups"));
  REQUIRE(groups.find("groups")->array.size() == 1);
  const auto& g = groups.find("groups")->array[0];
  CHECK(g.find("group_id")->string == "sg");
  CHECK(g.find("group_type")->string == "share");
  CHECK(g.find("protocol_type")->string == "share");
  CHECK(g.find("members")->number == 1);
  CHECK(g.find("lag")->number == 4);  // end 4 - start 0 - delivery complete 0

  auto group = c.ok(c.get("/api/group", {{"id", "sg"}}));
  CHECK(group.find("state")->string == "Stable");
  CHECK(group.find("protocol")->string == "simple");
  const auto& members = group.find("members")->array;
  REQUIRE(members.size() == 1);
  CHECK(members[0].find("member_id")->string == "m-1");
  REQUIRE(members[0].find("assignments")->array.size() == 1);
  CHECK(members[0].find("assignments")->array[0].find("topic")->string == "t");
  CHECK(members[0].find("assignments")->array[0].find("partition")->number == 0);
  const auto& offsets = group.find("offsets")->array;
  REQUIRE(offsets.size() == 1);
  CHECK(offsets[0].find("topic")->string == "t");
  CHECK(offsets[0].find("partition")->number == 0);
  CHECK(offsets[0].find("start_offset")->number == 0);
  CHECK(offsets[0].find("lag")->number == 4);
  CHECK(offsets[0].find("in_flight")->number == 2);

  // Not loaded on the broker: no in-flight count.
  c.share_in_flight = nullptr;
  auto unloaded = c.ok(c.get("/api/group", {{"id", "sg"}}));
  CHECK(unloaded.find("offsets")->array[0].find("in_flight")->kind == JsonValue::Kind::kNull);
  // A share group has no OffsetCommit reset.
  CHECK(c.post("/api/group/reset", R"({"id":"sg","to":"earliest"})").status == 400);
}

// A Kafka Streams member of group "app" as the application drives it over
// StreamsGroupHeartbeat: subtopology 0 reads `words` and writes
// `app-repartition`, subtopology 1 reads it and keeps a store with its
// changelog `app-store-changelog`.
struct StreamsRig {
  using Req = protocol::StreamsGroupHeartbeatRequest;
  Console c{{"group.streams.initial.rebalance.delay.ms=0"}};
  int32_t epoch = 0;
  std::vector<Req::TaskIds> active;

  static Req::Topology topology() {
    Req::Topology t;
    t.epoch = 1;
    auto& s0 = t.subtopologies.emplace_back();
    s0.subtopology_id = "0";
    s0.source_topics = {"words"};
    s0.repartition_sink_topics = {"app-repartition"};
    auto& s1 = t.subtopologies.emplace_back();
    s1.subtopology_id = "1";
    s1.repartition_source_topics.emplace_back().name = "app-repartition";
    s1.state_changelog_topics.emplace_back().name = "app-store-changelog";
    return t;
  }
  protocol::StreamsGroupHeartbeatResponse beat() {
    Req r;
    r.group_id = "app";
    r.member_id = "m-1";
    r.member_epoch = epoch;
    r.process_id = "p-1";
    r.user_endpoint = Req::Endpoint{"app.host", 8080, {}};
    if (epoch == 0) {
      r.rebalance_timeout_ms = 30000;
      r.topology = topology();
    }
    r.active_tasks = active;
    r.standby_tasks.emplace();
    r.warmup_tasks.emplace();
    auto resp = c.harness().call<protocol::StreamsGroupHeartbeatResponse>(r, 0);
    if (resp.error_code == 0) {
      epoch = resp.member_epoch;
      if (resp.active_tasks) active = convert(*resp.active_tasks);
    }
    return resp;
  }
  static std::vector<Req::TaskIds> convert(const std::vector<protocol::StreamsGroupHeartbeatResponse::TaskIds>& v) {
    std::vector<Req::TaskIds> out;
    out.reserve(v.size());
    for (const auto& t : v) out.push_back({t.subtopology_id, t.partitions, {}});
    return out;
  }
  void describe_topology() {
    protocol::StreamsGroupTopologyDescriptionUpdateRequest req;
    req.group_id = "app";
    req.member_id = "m-1";
    req.topology_epoch = 1;
    auto& s0 = req.topology_description.subtopologies.emplace_back();
    s0.subtopology_id = "0";
    s0.nodes.push_back({"KSTREAM-SOURCE-0000000000", 1, {"words"}, std::nullopt, {}, {"KSTREAM-SINK-0000000001"}, {}});
    s0.nodes.push_back({"KSTREAM-SINK-0000000001", 3, {}, "app-repartition", {}, {}, {}});
    auto& s1 = req.topology_description.subtopologies.emplace_back();
    s1.subtopology_id = "1";
    s1.nodes.push_back(
        {"KSTREAM-SOURCE-0000000002", 1, {"app-repartition"}, std::nullopt, {}, {"KSTREAM-AGGREGATE-0000000003"}, {}});
    s1.nodes.push_back({"KSTREAM-AGGREGATE-0000000003", 2, {}, std::nullopt, {"store"}, {}, {}});
    auto resp = c.harness().call<protocol::StreamsGroupTopologyDescriptionUpdateResponse>(req, 0);
    REQUIRE(resp.error_code == 0);
  }
};

TEST_CASE("console: a streams group's members, tasks, topology, processing graph, lag and reset", "[console]") {
  StreamsRig rig;
  Console& c = rig.c;
  c.ok(c.post("/api/topics/create", R"({"name":"words","partitions":2})"), 201);
  for (int i = 0; i < 3; ++i)
    c.ok(c.post("/api/messages/produce", R"({"topic":"words","key":"k","value":"v","partition":0})"));
  for (int i = 0; i < 6 && rig.active.empty(); ++i) REQUIRE(rig.beat().error_code == 0);
  REQUIRE(!rig.active.empty());
  REQUIRE(rig.beat().error_code == 0);  // owns its tasks: Stable
  protocol::OffsetCommitRequest commit;
  commit.group_id = "app";
  commit.member_id = "m-1";
  commit.generation_id_or_member_epoch = rig.epoch;
  auto& t = commit.topics.emplace_back();
  t.name = "words";
  t.partitions.push_back({0, 1, -1, std::nullopt, {}});
  REQUIRE(c.harness().call<protocol::OffsetCommitResponse>(commit, 9).topics[0].partitions[0].error_code == 0);

  auto groups = c.ok(c.get("/api/groups"));
  REQUIRE(groups.find("groups")->array.size() == 1);
  const auto& g = groups.find("groups")->array[0];
  CHECK(g.find("group_type")->string == "streams");
  CHECK(g.find("protocol_type")->string == "streams");
  CHECK(g.find("members")->number == 1);
  CHECK(g.find("lag")->number == 2);

  auto group = c.ok(c.get("/api/group", {{"id", "app"}}));
  CHECK(group.find("state")->string == "Stable");
  CHECK(group.find("group_epoch")->number >= 1);
  CHECK(group.find("assignment_epoch")->number == group.find("group_epoch")->number);
  const auto& members = group.find("members")->array;
  REQUIRE(members.size() == 1);
  CHECK(members[0].find("process_id")->string == "p-1");
  CHECK(members[0].find("user_endpoint")->string == "app.host:8080");
  std::vector<std::string> tasks;
  for (const auto& x : members[0].find("active_tasks")->array) tasks.push_back(x.string);
  std::sort(tasks.begin(), tasks.end());
  CHECK(tasks == std::vector<std::string>{"0_0", "0_1", "1_0", "1_1"});
  const auto& subs = group.find("topology")->find("subtopologies")->array;
  REQUIRE(subs.size() == 2);
  CHECK(subs[0].find("source_topics")->array[0].string == "words");
  CHECK(subs[0].find("repartition_sink_topics")->array[0].string == "app-repartition");
  CHECK(subs[1].find("repartition_source_topics")->array[0].string == "app-repartition");
  CHECK(subs[1].find("changelog_topics")->array[0].string == "app-store-changelog");
  CHECK(group.find("topology_description_status")->string == "NOT_STORED");
  CHECK(group.find("topology_description")->kind == JsonValue::Kind::kNull);
  CHECK(group.find("offsets")->array[0].find("lag")->number == 2);

  rig.describe_topology();
  auto described = c.ok(c.get("/api/group", {{"id", "app"}}));
  CHECK(described.find("topology_description_status")->string == "AVAILABLE");
  const auto& dsubs = described.find("topology_description")->find("subtopologies")->array;
  REQUIRE(dsubs.size() == 2);
  const auto& source = dsubs[0].find("nodes")->array[0];
  CHECK(source.find("type")->string == "SOURCE");
  CHECK(source.find("successors")->array[0].string == "KSTREAM-SINK-0000000001");
  CHECK(dsubs[0].find("nodes")->array[1].find("sink_topic")->string == "app-repartition");
  CHECK(dsubs[1].find("nodes")->array[1].find("type")->string == "PROCESSOR");
  CHECK(dsubs[1].find("nodes")->array[1].find("stores")->array[0].string == "store");

  // A running application's offsets are not reset; once it has left, only
  // its input topics are.
  CHECK(c.post("/api/group/reset", R"({"id":"app","to":"earliest"})").status == 409);
  rig.epoch = -1;
  REQUIRE(rig.beat().error_code == 0);
  CHECK(c.ok(c.get("/api/group", {{"id", "app"}})).find("state")->string == "Empty");
  CHECK(c.post("/api/group/reset", R"({"id":"app","to":"earliest","topic":"app-repartition"})").status == 400);
  auto reset = c.ok(c.post("/api/group/reset", R"({"id":"app","to":"earliest"})"));
  REQUIRE(reset.find("offsets")->array.size() == 1);
  CHECK(reset.find("offsets")->array[0].find("topic")->string == "words");
  CHECK(reset.find("offsets")->array[0].find("offset")->number == 0);
}

TEST_CASE("console: read-only refuses every change, a POST must be JSON", "[console]") {
  Console c({"http.console.write.enabled=false"});
  auto r = c.post("/api/topics/create", R"({"name":"t","partitions":1})");
  CHECK(r.status == 403);
  CHECK(r.body.find("CONSOLE_READ_ONLY") != std::string::npos);
  CHECK(c.ok(c.get("/api/overview")).find("write_enabled")->boolean == false);
  CHECK(c.ok(c.get("/api/topics")).find("topics")->array.empty());

  Console w;
  CHECK(w.post("/api/topics/create", R"({"name":"t","partitions":1})", "text/plain").status == 415);
  CHECK(w.post("/api/topics/create", "not json").status == 400);
}

TEST_CASE("console: Basic credentials through the broker's PLAIN and SCRAM", "[console]") {
  const std::string jaas =
      R"(org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="alice-secret";)";
  for (const std::string mechanism : {"PLAIN", "SCRAM-SHA-256"}) {
    INFO(mechanism);
    Console c({"listeners=PLAINTEXT://127.0.0.1:0,SASL://127.0.0.1:0",
               "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SASL:SASL_PLAINTEXT",
               "sasl.enabled.mechanisms=" + mechanism, "listener.name.sasl.plain.sasl.jaas.config=" + jaas,
               "scram.bootstrap.users=SCRAM-SHA-256=[name=alice,password=alice-secret]"});
    auto r = c.get("/api/topics");
    CHECK(r.status == 401);
    bool challenged = false;
    for (const auto& [k, v] : r.headers) challenged |= k == "WWW-Authenticate" && v.starts_with("Basic");
    CHECK(challenged);
    c.authorization = "Basic " + base64_encode("alice:wrong");
    CHECK(c.get("/api/topics").status == 401);
    c.authorization = "Basic " + base64_encode("alice:alice-secret");
    c.ok(c.get("/api/topics"));
    CHECK(c.ok(c.get("/api/overview")).find("auth")->string == "basic");
  }
}

}  // namespace
}  // namespace skiff::console
