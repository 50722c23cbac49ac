// Streams groups' topic configuration (coordinator/group/streams/topic_configuration.h):
// the cases of Kafka 4.4's RepartitionTopicsTest, CopartitionedTopicsEnforcerTest,
// ChangelogTopicsTest and InternalTopicManagerTest, on our code.
#include "coordinator/group/streams/topic_configuration.h"

#include <catch2/catch.hpp>

namespace skiff::test {
namespace {

using namespace group::streams;
using Counts = std::map<std::string, int32_t>;

PartitionCountOf broker(Counts topics) {
  return [topics = std::move(topics)](const std::string& t) -> std::optional<int32_t> {
    auto it = topics.find(t);
    return it == topics.end() ? std::nullopt : std::optional<int32_t>(it->second);
  };
}

TopicInfo topic_info(const std::string& name, int32_t partitions = 0, std::map<std::string, std::string> configs = {}) {
  return TopicInfo{name, partitions, 0, std::move(configs)};
}

Topology topology_of(std::vector<Subtopology> subs) {
  Topology t;
  t.epoch = 1;
  for (auto& s : subs) t.subtopologies[s.id] = std::move(s);
  return t;
}

// source1 -> sub "1" -> repartition -> sub "2" (with a state store).
Topology repartitioning_topology(int32_t fixed = 0) {
  Subtopology a;
  a.id = "1";
  a.source_topics = {"source1"};
  a.repartition_sink_topics = {"repartition"};
  Subtopology b;
  b.id = "2";
  b.repartition_source_topics = {topic_info("repartition", fixed, {{"cleanup.policy", "delete"}})};
  b.state_changelog_topics = {topic_info("changelog", 0, {{"cleanup.policy", "compact"}})};
  return topology_of({a, b});
}

TEST_CASE("streams topics: a repartition topic takes the partitions of its writer's sources", "[kip1071][topics]") {
  CHECK(repartition_partition_counts(repartitioning_topology(), broker({{"source1", 3}})) ==
        Counts{{"repartition", 3}});
  // A partition count fixed by the topology (repartition() in the DSL) wins.
  CHECK(repartition_partition_counts(repartitioning_topology(10), broker({{"source1", 3}})) ==
        Counts{{"repartition", 10}});
}

TEST_CASE("streams topics: repartition counts flow through chains of repartition topics", "[kip1071][topics]") {
  auto t = repartitioning_topology();
  Subtopology c;
  c.id = "3";
  c.source_topics = {"source2"};
  c.repartition_source_topics = {topic_info("repartition2")};
  t.subtopologies["2"].repartition_sink_topics = {"repartition2"};
  t.subtopologies["3"] = c;
  // repartition2's writer reads repartition (3); what its reader reads
  // (source2, 8) does not count: only writers do.
  CHECK(repartition_partition_counts(t, broker({{"source1", 3}, {"source2", 8}})) ==
        Counts{{"repartition", 3}, {"repartition2", 3}});
}

TEST_CASE("streams topics: repartition errors with Kafka's messages", "[kip1071][topics]") {
  SECTION("a missing external source topic is Kafka's IllegalStateException") {
    CHECK_THROWS_WITH(repartition_partition_counts(repartitioning_topology(), broker({})),
                      "Missing source topics: source1");
  }
  SECTION("a repartition source topic nobody writes") {
    auto t = repartitioning_topology();
    t.subtopologies["1"].repartition_sink_topics.clear();
    CHECK_THROWS_AS(repartition_partition_counts(t, broker({{"source1", 3}})), InvalidTopologyError);
    CHECK_THROWS_WITH(repartition_partition_counts(t, broker({{"source1", 3}})),
                      "Failed to compute number of partitions for all repartition topics, because a repartition "
                      "source topic is never used as a sink topic.");
  }
  SECTION("a loop of repartition topics") {
    Subtopology a{"a", {"r2"}, {"r1"}, {}, {topic_info("r2")}, {}};
    Subtopology b{"b", {"r1"}, {"r2"}, {}, {topic_info("r1")}, {}};
    CHECK_THROWS_WITH(repartition_partition_counts(topology_of({a, b}), broker({})),
                      "Failed to compute number of partitions for all repartition topics. There may be loops in the "
                      "topology that cannot be resolved.");
  }
}

TEST_CASE("streams topics: copartitioning as Kafka's CopartitionedTopicsEnforcer", "[kip1071][topics]") {
  SECTION("an empty group decides nothing") { CHECK(enforce_copartitioning({}, {}, {}, broker({})).empty()); }
  SECTION("a topic without a partition count is Kafka's IllegalStateException") {
    CHECK_THROWS_AS(enforce_copartitioning({"topic"}, {}, {}, broker({})), TopologyStateError);
    CHECK_THROWS_WITH(enforce_copartitioning({"topic"}, {}, {}, broker({})),
                      "Number of partitions is not set for topic: topic");
  }
  SECTION("source topics that differ are INCORRECTLY_PARTITIONED_TOPICS") {
    try {
      enforce_copartitioning({"source1", "source2"}, {}, {}, broker({{"source1", 2}, {"source2", 3}}));
      FAIL("no error");
    } catch (const TopicConfigurationFailure& e) {
      CHECK(e.status == StreamsStatus::kIncorrectlyPartitionedTopics);
      CHECK(std::string(e.what()) ==
            "Following topics do not have the same number of partitions: [{source1=2, source2=3}]");
    }
  }
  SECTION("flexible repartition topics follow the source topics") {
    CHECK(enforce_copartitioning({"source1", "repartitioned"}, {}, {"repartitioned"},
                                 broker({{"source1", 2}, {"repartitioned", 10}})) == Counts{{"repartitioned", 2}});
  }
  SECTION("only repartition topics: the largest count") {
    CHECK(enforce_copartitioning({"r1", "r2", "r3"}, {}, {"r1", "r2", "r3"},
                                 broker({{"r1", 1}, {"r2", 15}, {"r3", 5}})) ==
          Counts{{"r1", 15}, {"r2", 15}, {"r3", 15}});
  }
  SECTION("fixed repartition topics that differ") {
    try {
      enforce_copartitioning({"r1", "r2"}, {"r1", "r2"}, {}, broker({{"r1", 10}, {"r2", 5}}));
      FAIL("no error");
    } catch (const TopicConfigurationFailure& e) {
      CHECK(e.status == StreamsStatus::kIncorrectlyPartitionedTopics);
      CHECK(std::string(e.what()) == "Following topics do not have the same number of partitions: [{r1=10, r2=5}]");
    }
  }
  SECTION("fixed repartition topics set the count of flexible ones") {
    CHECK(
        enforce_copartitioning({"r1", "r2", "r3"}, {"r1", "r2"}, {"r3"}, broker({{"r1", 10}, {"r2", 10}, {"r3", 4}})) ==
        Counts{{"r1", 10}, {"r2", 10}, {"r3", 10}});
  }
  SECTION("a fixed repartition topic that disagrees with the source topics") {
    CHECK_THROWS_WITH(enforce_copartitioning({"source1", "r10"}, {"r10"}, {}, broker({{"source1", 2}, {"r10", 10}})),
                      "Number of partitions [10] of repartition topic [r10] doesn't match number of partitions [2] of "
                      "the source topic.");
    CHECK(enforce_copartitioning({"source1", "r2"}, {"r2"}, {}, broker({{"source1", 2}, {"r2", 2}})) ==
          Counts{{"r2", 2}});
  }
}

TEST_CASE("streams topics: changelog topics as Kafka's ChangelogTopics", "[kip1071][topics]") {
  Subtopology stateless{"s", {"source"}, {}, {}, {}, {}};
  CHECK(changelog_partition_counts(topology_of({stateless}), broker({{"source", 3}})).empty());
  Subtopology stateful{"s", {"source", "other"}, {}, {topic_info("changelog")}, {}, {}};
  CHECK(changelog_partition_counts(topology_of({stateful}), broker({{"source", 3}, {"other", 5}})) ==
        Counts{{"changelog", 5}});
  // Repartition source topics count too (a count decided before).
  Subtopology after_repartition{"s", {"source"}, {}, {topic_info("changelog")}, {topic_info("rep")}, {}};
  CHECK(changelog_partition_counts(topology_of({after_repartition}), broker({{"source", 3}, {"rep", 6}})) ==
        Counts{{"changelog", 6}});
  // Kafka 4.4 sizes a changelog that is also a source topic as any other.
  Subtopology source_table{"s", {"source"}, {}, {topic_info("source"), topic_info("changelog")}, {}, {}};
  CHECK(changelog_partition_counts(topology_of({source_table}), broker({{"source", 3}})) ==
        Counts{{"changelog", 3}, {"source", 3}});
  Subtopology no_sources{"s", {}, {}, {topic_info("changelog")}, {}, {}};
  CHECK_THROWS_AS(changelog_partition_counts(topology_of({no_sources}), broker({})), InvalidTopologyError);
  CHECK_THROWS_WITH(changelog_partition_counts(topology_of({no_sources}), broker({})),
                    "No source topics found for subtopology s");
  CHECK_THROWS_WITH(changelog_partition_counts(topology_of({stateful}), broker({{"source", 3}})),
                    "No partition count for source topic other");
}

TEST_CASE("streams topics: a missing source topic is MISSING_SOURCE_TOPICS", "[kip1071][topics]") {
  const auto r = configure_topics(repartitioning_topology(), broker({}));
  REQUIRE_FALSE(r.error);
  REQUIRE(r.configured.error);
  CHECK(r.configured.error->status == StreamsStatus::kMissingSourceTopics);
  CHECK(r.configured.error->message == "Source topics source1 are missing.");
  CHECK_FALSE(r.configured.subtopologies);
  CHECK_FALSE(r.configured.ready());
  CHECK(status_name(r.configured.error->status) == std::string("MISSING_SOURCE_TOPICS"));
}

TEST_CASE("streams topics: missing internal topics are named with their partitions and configs", "[kip1071][topics]") {
  const auto r = configure_topics(repartitioning_topology(), broker({{"source1", 4}}));
  REQUIRE_FALSE(r.error);
  const auto& c = r.configured;
  REQUIRE(c.error);
  CHECK(c.error->status == StreamsStatus::kMissingInternalTopics);
  CHECK(c.error->message == "Internal topics are missing: changelog, repartition");
  REQUIRE(c.internal_topics_to_create.size() == 2);
  const auto& rep = c.internal_topics_to_create.at("repartition");
  CHECK(rep.partitions == 4);
  CHECK(rep.replication_factor == -1);
  CHECK(rep.configs == std::map<std::string, std::string>{{"cleanup.policy", "delete"}});
  const auto& log = c.internal_topics_to_create.at("changelog");
  CHECK(log.partitions == 4);
  CHECK(log.configs == std::map<std::string, std::string>{{"cleanup.policy", "compact"}});
  REQUIRE(c.subtopologies);
  CHECK(c.subtopologies->at("2").number_of_tasks == 4);
  CHECK(c.subtopologies->at("1").repartition_sink_topics == std::set<std::string>{"repartition"});
}

TEST_CASE("streams topics: once the internal topics exist the topology is ready", "[kip1071][topics]") {
  auto t = repartitioning_topology();
  t.subtopologies["2"].state_changelog_topics[0].replication_factor = 3;
  const auto r = configure_topics(t, broker({{"source1", 4}, {"repartition", 4}}));
  REQUIRE_FALSE(r.error);
  REQUIRE(r.configured.internal_topics_to_create.size() == 1);
  CHECK(r.configured.internal_topics_to_create.at("changelog").replication_factor == 3);
  const auto done = configure_topics(t, broker({{"source1", 4}, {"repartition", 4}, {"changelog", 4}}));
  CHECK(done.configured.ready());
  CHECK(done.configured.topology_epoch == 1);
  REQUIRE(done.configured.subtopologies);
  CHECK(done.configured.subtopologies->at("1").number_of_tasks == 4);
  CHECK(done.configured.subtopologies->at("2").state_changelog_topics.at("changelog").replication_factor == 3);
}

TEST_CASE("streams topics: an internal topic with other partitions is INCORRECTLY_PARTITIONED_TOPICS",
          "[kip1071][topics]") {
  const auto r =
      configure_topics(repartitioning_topology(), broker({{"source1", 4}, {"repartition", 4}, {"changelog", 2}}));
  REQUIRE(r.configured.error);
  CHECK(r.configured.error->status == StreamsStatus::kIncorrectlyPartitionedTopics);
  CHECK(r.configured.error->message ==
        "Existing topic changelog has different number of partitions: expected 4, found 2");
  CHECK_FALSE(r.configured.subtopologies);
}

TEST_CASE("streams topics: copartitioned source topics that differ", "[kip1071][topics]") {
  Subtopology join{"j", {"left", "right"}, {}, {}, {}, {CopartitionGroup{{0, 1}, {}}}};
  const auto r = configure_topics(topology_of({join}), broker({{"left", 2}, {"right", 3}}));
  REQUIRE(r.configured.error);
  CHECK(r.configured.error->status == StreamsStatus::kIncorrectlyPartitionedTopics);
  CHECK(r.configured.error->message ==
        "Following topics do not have the same number of partitions: [{left=2, right=3}]");
  CHECK(configure_topics(topology_of({join}), broker({{"left", 3}, {"right", 3}})).configured.ready());
}

TEST_CASE("streams topics: a copartitioned repartition topic follows the other source", "[kip1071][topics]") {
  auto t = repartitioning_topology();
  auto& s2 = t.subtopologies["2"];
  s2.source_topics.push_back("table");
  s2.copartition_groups = {CopartitionGroup{{0}, {0}}};  // "table" with "repartition"
  const auto r = configure_topics(t, broker({{"source1", 8}, {"table", 2}}));
  REQUIRE(r.configured.error);
  CHECK(r.configured.error->status == StreamsStatus::kMissingInternalTopics);
  CHECK(r.configured.internal_topics_to_create.at("repartition").partitions == 2);
  CHECK(r.configured.subtopologies->at("2").number_of_tasks == 2);
}

TEST_CASE("streams topics: an invalid topology is STREAMS_INVALID_TOPOLOGY", "[kip1071][topics]") {
  auto t = repartitioning_topology();
  t.subtopologies["1"].repartition_sink_topics.clear();
  auto r = configure_topics(t, broker({{"source1", 3}}));
  REQUIRE(r.error);
  CHECK(r.error->code == ErrorCode::kStreamsInvalidTopology);
  CHECK(r.error->message.find("never used as a sink topic") != std::string::npos);
  // A copartition group pointing past its topics is refused, not a crash.
  auto bad = repartitioning_topology();
  bad.subtopologies["2"].copartition_groups = {CopartitionGroup{{7}, {}}};
  r = configure_topics(bad, broker({{"source1", 3}}));
  REQUIRE(r.error);
  CHECK(r.error->code == ErrorCode::kStreamsInvalidTopology);
  CHECK(r.error->message == "Copartition group of subtopology 2 refers to topic index 7, which does not exist.");
  CHECK(configure_topics(bad, broker({})).error);  // before the missing source topics
}

TEST_CASE("streams topics: topic lists are summarized as Kafka's", "[kip1071][topics]") {
  CHECK(summarize_topics({}) == "<none>");
  CHECK(summarize_topics({"a"}) == "a");
  CHECK(summarize_topics({"a", "b", "c"}) == "a, b, c");
  CHECK(summarize_topics({"a", "b", "c", "d", "e"}) == "a, b, c and 2 additional topics");
  Subtopology s{"s", {"t1", "t2", "t3", "t4"}, {}, {}, {}, {}};
  const auto r = configure_topics(topology_of({s}), broker({}));
  CHECK(r.configured.error->message == "Source topics t1, t2, t3 and 1 additional topics are missing.");
}

}  // namespace
}  // namespace skiff::test
