// KIP-1071's streams groups in the GroupCoordinator (Kafka 4.4's
// GroupMetadataManager streams paths): StreamsGroupHeartbeat from join to a
// stable assignment through the topology's statuses (missing source topics,
// missing internal topics), tasks moving between members only once
// revoked, leaving, session expiry, the initial rebalance delay, the
// records replayed at a restart, describe / list / delete, the request
// checks with Kafka's messages, and offset commits with streams member epochs.
#include <thread>
#include <utility>

#include "coordinator/group/streams/streams_tasks.h"
#include "protocol/byte_writer.h"
#include "tests/coordinator/group/group_fixture.h"

using namespace skiff;
using namespace skiff::test;
using Req = protocol::StreamsGroupHeartbeatRequest;

namespace {

GroupConfig streams_test_config() {
  auto c = GroupFixture::test_config();
  c.streams_initial_rebalance_delay_ms = 0;
  return c;
}

// A word count: subtopology 0 reads `words` and writes the repartition topic
// `app-repartition`; subtopology 1 reads it and keeps a store with its
// changelog `app-store-changelog`.
Req::Topology word_count(int32_t epoch = 1) {
  Req::Topology t;
  t.epoch = epoch;
  auto& s0 = t.subtopologies.emplace_back();
  s0.subtopology_id = "0";
  s0.source_topics = {"words"};
  s0.repartition_sink_topics = {"app-repartition"};
  auto& s1 = t.subtopologies.emplace_back();
  s1.subtopology_id = "1";
  auto& rs = s1.repartition_source_topics.emplace_back();
  rs.name = "app-repartition";
  rs.topic_configs.push_back({"cleanup.policy", "delete", {}});
  auto& cl = s1.state_changelog_topics.emplace_back();
  cl.name = "app-store-changelog";
  cl.topic_configs.push_back({"cleanup.policy", "compact", {}});
  return t;
}

using Tasks = std::map<std::string, std::set<int32_t>>;

std::vector<Req::TaskIds> to_ids(const Tasks& t) {
  std::vector<Req::TaskIds> out;
  for (const auto& [s, ps] : t) out.push_back({s, {ps.begin(), ps.end()}, {}});
  return out;
}

Tasks from_ids(const std::vector<protocol::StreamsGroupHeartbeatResponse::TaskIds>& v) {
  Tasks out;
  for (const auto& t : v) out[t.subtopology_id].insert(t.partitions.begin(), t.partitions.end());
  return out;
}

size_t task_count(const Tasks& t) {
  size_t n = 0;
  for (const auto& [s, ps] : t) n += ps.size();
  return n;
}

// A member as Kafka Streams drives one: it owns what it was last told.
struct Member {
  Member(std::string member_id, std::string process_id, int32_t member_epoch = 0)
      : id(std::move(member_id)), process(std::move(process_id)), epoch(member_epoch) {}
  std::string id;
  std::string process;
  int32_t epoch = 0;
  Tasks active, standby;
  int32_t endpoint_epoch = 0;
};

struct StreamsFixture {
  explicit StreamsFixture(GroupConfig config = streams_test_config()) : f(std::move(config)) {}
  TopicResolver resolver() {
    auto* logs = f.logs.get();
    return [logs](const std::string& n) -> std::optional<group::consumer::TopicMetadata> {
      auto t = logs->topic(n);
      if (!t) return std::nullopt;
      return group::consumer::TopicMetadata{t->topic_id, n, t->partitions};
    };
  }
  StreamsHeartbeatResult send(const Req& req) {
    StreamsHeartbeatParams p;
    p.version = version;
    p.request = &req;
    p.client_id = "client";
    p.client_host = "/127.0.0.1";
    p.resolve = resolver();
    return f.c().streams_heartbeat(p);
  }
  Req request(const Member& m, const std::string& group = "app") {
    Req r;
    r.group_id = group;
    r.member_id = m.id;
    r.member_epoch = m.epoch;
    r.endpoint_information_epoch = m.endpoint_epoch;
    r.process_id = m.process;
    r.user_endpoint = Req::Endpoint{m.process + ".host", 8080, {}};
    if (m.epoch == 0) {
      r.rebalance_timeout_ms = 30000;
      r.topology = word_count();
      r.active_tasks.emplace();
      r.standby_tasks.emplace();
      r.warmup_tasks.emplace();
    } else {
      r.active_tasks = to_ids(m.active);
      r.standby_tasks = to_ids(m.standby);
      r.warmup_tasks.emplace();
    }
    return r;
  }
  StreamsHeartbeatResult beat(Member& m, const std::string& group = "app") {
    auto r = send(request(m, group));
    if (r.response.error_code == 0) {
      m.epoch = r.response.member_epoch;
      if (r.response.active_tasks) m.active = from_ids(*r.response.active_tasks);
      if (r.response.standby_tasks) m.standby = from_ids(*r.response.standby_tasks);
      m.endpoint_epoch = r.response.endpoint_information_epoch;
    }
    return r;
  }
  void create_internal(const StreamsHeartbeatResult& r) {
    for (const auto& t : r.to_create) REQUIRE(f.logs->create_topic(t.name, t.partitions));
  }
  // Every member heartbeats until nothing moves.
  void settle(const std::vector<Member*>& ms) {
    for (int round = 0; round < 8; ++round)
      for (auto* m : ms) REQUIRE(beat(*m).response.error_code == 0);
  }

  GroupFixture f;
  int16_t version = 1;
};

// The detail of the response's status `code`, if it has it.
std::optional<std::string> status_of(const StreamsHeartbeatResult& r, group::streams::StreamsStatus code) {
  if (!r.response.status) return std::nullopt;
  for (const auto& s : *r.response.status)
    if (s.status_code == static_cast<int8_t>(code)) return s.status_detail;
  return std::nullopt;
}

using group::streams::StreamsStatus;

}  // namespace

TEST_CASE("streams heartbeat: from missing topics to every task assigned", "[groups][kip1071]") {
  StreamsFixture s;
  Member a{"member-a", "process-a"};
  auto r = s.beat(a);
  REQUIRE(r.response.error_code == 0);
  CHECK(a.epoch > 0);
  CHECK(status_of(r, StreamsStatus::kMissingSourceTopics) == "Source topics words are missing.");
  CHECK(r.to_create.empty());
  CHECK(task_count(a.active) == 0);

  REQUIRE(s.f.logs->create_topic("words", 4));
  r = s.beat(a);
  REQUIRE(r.response.error_code == 0);
  REQUIRE(status_of(r, StreamsStatus::kMissingInternalTopics));
  REQUIRE(r.to_create.size() == 2);
  for (const auto& t : r.to_create) {
    CHECK(t.partitions == 4);  // the repartition topic and the changelog follow `words`
    CHECK(t.replication_factor == -1);
  }
  s.create_internal(r);
  s.settle({&a});
  CHECK(task_count(a.active) == 8);
  // The response encodes at the request's version (v0's recovery lag is the legacy int32).
  for (int16_t v : {0, 1}) {
    s.version = v;
    auto at = s.beat(a);
    protocol::ByteWriter w(at.response.encoded_size(v));
    CHECK_NOTHROW(at.response.encode(w, v));
  }
  auto d = s.f.c().describe_streams_group("app", false);
  CHECK(d.error_code == 0);
  CHECK(d.group_state == "Stable");
  CHECK(d.members.size() == 1);
  CHECK(d.assignor_name == "sticky");
}

TEST_CASE("streams heartbeat: two members split the tasks, each active once", "[groups][kip1071]") {
  StreamsFixture s;
  REQUIRE(s.f.logs->create_topic("words", 4));
  REQUIRE(s.f.logs->create_topic("app-repartition", 4));
  REQUIRE(s.f.logs->create_topic("app-store-changelog", 4));
  Member a{"member-a", "process-a"}, b{"member-b", "process-b"};
  s.settle({&a});
  REQUIRE(task_count(a.active) == 8);
  s.settle({&a, &b});
  CHECK(task_count(a.active) == 4);
  CHECK(task_count(b.active) == 4);
  for (const auto& [sub, ps] : a.active)
    for (int32_t p : ps) CHECK_FALSE((b.active.count(sub) > 0 && b.active.at(sub).contains(p)));
  CHECK(a.epoch == b.epoch);
  CHECK(s.f.c().describe_streams_group("app", false).group_state == "Stable");

  SECTION("b leaves: a runs everything again") {
    Req leave = s.request(b);
    leave.member_epoch = -1;
    auto r = s.send(leave);
    CHECK(r.response.error_code == 0);
    CHECK(r.response.member_epoch == -1);
    s.settle({&a});
    CHECK(task_count(a.active) == 8);
  }
  SECTION("the interactive-query endpoints cover every partition of words") {
    Member probe = a;
    probe.endpoint_epoch = -1;
    auto r = s.beat(probe);
    REQUIRE(r.response.partitions_by_user_endpoint);
    std::set<int32_t> words;
    for (const auto& e : *r.response.partitions_by_user_endpoint)
      for (const auto& tp : e.active_partitions)
        if (tp.topic == "words") words.insert(tp.partitions.begin(), tp.partitions.end());
    CHECK(words == std::set<int32_t>{0, 1, 2, 3});
    CHECK(r.response.partitions_by_user_endpoint->size() == 2);
  }
  SECTION("a restart reloads the group: same epoch, members and tasks") {
    const int32_t epoch = a.epoch;
    s.f.restart();
    auto d = s.f.c().describe_streams_group("app", false);
    REQUIRE(d.error_code == 0);
    CHECK(d.group_epoch >= epoch);
    CHECK(d.members.size() == 2);
    auto r = s.beat(a);
    CHECK(r.response.error_code == 0);
    CHECK(r.response.member_epoch == epoch);
    s.settle({&a, &b});
    CHECK(task_count(a.active) + task_count(b.active) == 8);
  }
}

TEST_CASE("streams heartbeat: a task moves only after its owner revoked it", "[groups][kip1071]") {
  StreamsFixture s;
  REQUIRE(s.f.logs->create_topic("words", 4));
  REQUIRE(s.f.logs->create_topic("app-repartition", 4));
  REQUIRE(s.f.logs->create_topic("app-store-changelog", 4));
  Member a{"member-a", "process-a"}, b{"member-b", "process-b"};
  s.settle({&a});
  REQUIRE(task_count(a.active) == 8);
  // b joins; until a heartbeats its smaller set, b gets nothing a still runs.
  s.beat(b);
  s.beat(b);
  CHECK(task_count(b.active) == 0);
  s.beat(a);  // a is told to give up half
  CHECK(task_count(a.active) == 4);
  s.beat(b);  // a has not confirmed yet
  CHECK(task_count(b.active) == 0);
  s.beat(a);  // a reports the smaller set: the tasks are released
  s.beat(b);
  CHECK(task_count(b.active) == 4);
}

TEST_CASE("streams heartbeat: request checks answer with Kafka's messages", "[groups][kip1071]") {
  StreamsFixture s;
  Member a{"member-a", "process-a"};
  auto bad = [&](auto edit) {
    Req r = s.request(a);
    edit(r);
    return s.send(r).response;
  };
  auto r = bad([](Req& q) { q.member_id = " "; });
  CHECK(r.error_code == static_cast<int16_t>(ErrorCode::kInvalidRequest));
  CHECK(r.error_message == "MemberId can't be empty.");
  r = bad([](Req& q) { q.rebalance_timeout_ms = -1; });
  CHECK(r.error_message == "RebalanceTimeoutMs must be provided in first request.");
  r = bad([](Req& q) { q.topology.reset(); });
  CHECK(r.error_message == "Topology must be non-null when (re-)joining.");
  r = bad([](Req& q) { q.topology->subtopologies[0].source_topic_regex = {"w.*"}; });
  CHECK(r.error_message == "Regular expressions for source topics are not supported yet.");
  r = bad([](Req& q) { q.topology->subtopologies[1].state_changelog_topics[0].partitions = 3; });
  CHECK(r.error_code == static_cast<int16_t>(ErrorCode::kStreamsInvalidTopology));
  CHECK(r.error_message ==
        "Changelog topic app-store-changelog must have an undefined partition count, but it is set to 3.");
  r = bad([](Req& q) { q.member_epoch = -3; });
  CHECK(r.error_message == "MemberEpoch is -3, but must be greater than or equal to -2.");
  r = bad([](Req& q) { q.standby_tasks.reset(); });
  CHECK(r.error_message == "If one task-type is non-null, all must be non-null.");
  r = bad([](Req& q) { q.member_epoch = 3; });
  CHECK(r.error_message == "Topology can only be provided when (re-)joining.");

  // A group that exists: unknown member, fenced epoch, topology change.
  REQUIRE(s.beat(a).response.error_code == 0);
  Member stranger{"member-x", "process-x", 5};
  auto u = s.send(s.request(stranger)).response;
  CHECK(u.error_code == static_cast<int16_t>(ErrorCode::kUnknownMemberId));
  Member ahead = a;
  ahead.epoch += 7;
  CHECK(s.send(s.request(ahead)).response.error_code == static_cast<int16_t>(ErrorCode::kFencedMemberEpoch));
  Member other{"member-b", "process-b"};
  Req changed = s.request(other);
  changed.topology->subtopologies[0].source_topics = {"sentences"};
  auto c = s.send(changed).response;
  CHECK(c.error_code == static_cast<int16_t>(ErrorCode::kInvalidRequest));
  CHECK(c.error_message == "Topology updates are not supported yet.");
  CHECK(s.f.c().describe_streams_group("app", false).members.size() == 1);  // nothing changed
}

TEST_CASE("streams groups: the type is exclusive, list and delete see it", "[groups][kip1071]") {
  StreamsFixture s;
  Member a{"member-a", "process-a"};
  REQUIRE(s.beat(a).response.error_code == 0);
  auto groups = s.f.c().list_groups({}, {"streams"});
  REQUIRE(groups.size() == 1);
  CHECK(groups[0].group_type == "streams");
  CHECK(groups[0].protocol_type == "streams");
  CHECK(s.f.c().list_groups({}, {"consumer"}).empty());
  CHECK(s.f.c().delete_groups({"app"}) == std::vector<ErrorCode>{ErrorCode::kNonEmptyGroup});
  auto d = s.f.c().describe_streams_group("nope", false);
  CHECK(d.error_code == static_cast<int16_t>(ErrorCode::kGroupIdNotFound));
  CHECK(d.error_message == "Group nope not found.");

  Req leave = s.request(a);
  leave.member_epoch = -1;
  REQUIRE(s.send(leave).response.error_code == 0);
  CHECK(s.f.c().list_groups({"Empty"}, {"streams"}).size() == 1);
  CHECK(s.f.c().delete_groups({"app"}) == std::vector<ErrorCode>{ErrorCode::kNone});
  s.f.restart();
  CHECK(s.f.c().list_groups({}, {}).empty());
}

TEST_CASE("streams groups: offset commits carry the member epoch", "[groups][kip1071]") {
  StreamsFixture s;
  REQUIRE(s.f.logs->create_topic("words", 4));
  REQUIRE(s.f.logs->create_topic("app-repartition", 4));
  REQUIRE(s.f.logs->create_topic("app-store-changelog", 4));
  Member a{"member-a", "process-a"};
  s.settle({&a});
  OffsetCommitParams p;
  p.group_id = "app";
  p.member_id = a.id;
  p.generation_id = a.epoch;
  p.api_version = 9;
  p.offsets.push_back({{"words", 0}, OffsetAndMetadata{10, -1, "", 0, -1}});
  CHECK(s.f.c().commit_offsets(p) == std::vector<ErrorCode>{ErrorCode::kNone});
  p.generation_id = a.epoch + 1;
  CHECK(s.f.c().commit_offsets(p) == std::vector<ErrorCode>{ErrorCode::kStaleMemberEpoch});
  p.generation_id = a.epoch;
  p.member_id = "ghost";
  CHECK(s.f.c().commit_offsets(p) == std::vector<ErrorCode>{ErrorCode::kUnknownMemberId});
  auto fetched = s.f.c().fetch_offsets("app", std::nullopt, false, a.id, a.epoch);
  CHECK(fetched.error == ErrorCode::kNone);
  CHECK(s.f.c().fetch_offsets("app", std::nullopt, false, a.id, a.epoch + 3).error == ErrorCode::kStaleMemberEpoch);
}

TEST_CASE("streams groups: the initial rebalance delay holds the first assignment back", "[groups][kip1071]") {
  auto config = streams_test_config();
  config.streams_initial_rebalance_delay_ms = 200;
  StreamsFixture s(config);
  REQUIRE(s.f.logs->create_topic("words", 2));
  REQUIRE(s.f.logs->create_topic("app-repartition", 2));
  REQUIRE(s.f.logs->create_topic("app-store-changelog", 2));
  Member a{"member-a", "process-a"};
  auto r = s.beat(a);
  CHECK(status_of(r, StreamsStatus::kAssignmentDelayed) ==
        "Assignment delayed due to the configured initial rebalance delay.");
  CHECK(task_count(a.active) == 0);
  for (int i = 0; i < 100 && task_count(a.active) < 4; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    s.beat(a);
  }
  CHECK(task_count(a.active) == 4);
}

TEST_CASE("streams groups: a member whose session expires is fenced", "[groups][kip1071]") {
  auto config = streams_test_config();
  config.streams_session_timeout_ms = 100;
  StreamsFixture s(config);
  Member a{"member-a", "process-a"}, b{"member-b", "process-b"};
  REQUIRE(s.beat(a).response.error_code == 0);
  REQUIRE(s.beat(b).response.error_code == 0);
  for (int i = 0; i < 100 && s.f.c().describe_streams_group("app", false).members.size() > 1; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    s.beat(a);  // a stays, b is silent
  }
  auto d = s.f.c().describe_streams_group("app", false);
  REQUIRE(d.members.size() == 1);
  CHECK(d.members[0].member_id == "member-a");
}

TEST_CASE("streams groups: group configs reach the members, rack-aware tags need client tags",
          "[groups][kip1071][configs]") {
  StreamsFixture s;
  for (const char* t : {"words", "app-repartition", "app-store-changelog"}) REQUIRE(s.f.logs->create_topic(t, 2));
  Member a{"member-a", "process-a"};
  auto r = s.beat(a);
  CHECK(r.response.task_offset_interval_ms == 60000);  // Kafka 4.4's broker defaults
  CHECK(r.response.acceptable_recovery_lag == 10000);
  CHECK(!status_of(r, StreamsStatus::kMissingClientTags));
  const int32_t epoch = s.f.c().describe_streams_group("app", false).group_epoch;

  REQUIRE(s.f.c()
              .alter_group_config("app",
                                  {{"streams.task.offset.interval.ms", "20000"},
                                   {"streams.acceptable.recovery.lag", "7"},
                                   {"streams.rack.aware.assignment.tags", "zone, rack"}},
                                  false)
              .error == ErrorCode::kNone);
  r = s.beat(a);
  CHECK(r.response.task_offset_interval_ms == 20000);
  CHECK(r.response.acceptable_recovery_lag == 7);
  CHECK(status_of(r, StreamsStatus::kMissingClientTags) ==
        "Missing required client tags for rack-aware standby assignment: [zone, rack]. Configure them via "
        "'client.tag.<tagKey>' in your Streams config.");
  // The tags are one of the assignor's configs: setting them is a new group epoch, as in Kafka.
  CHECK(s.f.c().describe_streams_group("app", false).group_epoch > epoch);

  auto req = s.request(a);
  req.client_tags = std::vector<Req::KeyValue>{{"zone", "z1", {}}};
  CHECK(status_of(s.send(req), StreamsStatus::kMissingClientTags) ==
        "Missing required client tags for rack-aware standby assignment: [rack]. Configure them via "
        "'client.tag.<tagKey>' in your Streams config.");
  req.client_tags->push_back({"rack", "r1", {}});
  CHECK(!status_of(s.send(req), StreamsStatus::kMissingClientTags));

  s.version = 0;  // Kafka checks the tags from v1 on
  Member b{"member-b", "process-b"};
  r = s.beat(b);
  REQUIRE(r.response.error_code == 0);
  CHECK(!status_of(r, StreamsStatus::kMissingClientTags));
  CHECK(r.response.acceptable_recovery_lag_legacy == 7);
}
