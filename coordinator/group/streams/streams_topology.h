// A streams application's topology as the coordinator keeps it (Kafka's
// StreamsTopology, persisted as StreamsGroupTopologyValue): subtopologies
// with their source topics, the repartition topics they write (sinks) and
// read (sources, with an optional fixed partition count), their state
// changelog topics and their copartition groups (indexes into the
// subtopology's source and repartition source topics). Internal topics carry
// the replication factor (0: the broker's default) and the topic configs the
// client sent; Kafka Streams sends cleanup.policy=compact for changelogs and
// cleanup.policy=delete, segment.bytes and retention.ms=-1 for repartition
// topics, and the broker creates them with exactly those (Kafka's
// InternalTopicManager adds none of its own).
//
// Threads: plain values.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace skiff::protocol {
struct StreamsGroupTopologyValue;
}

namespace skiff::group::streams {

struct TopicInfo {
  std::string name;
  int32_t partitions = 0;          // 0: derived by the coordinator
  int16_t replication_factor = 0;  // 0: the broker's default
  std::map<std::string, std::string> configs;
  bool operator==(const TopicInfo&) const = default;
};

struct CopartitionGroup {
  std::vector<int16_t> source_topics;              // indexes into Subtopology::source_topics
  std::vector<int16_t> repartition_source_topics;  // indexes into Subtopology::repartition_source_topics
  bool operator==(const CopartitionGroup&) const = default;
};

struct Subtopology {
  std::string id;
  std::vector<std::string> source_topics;  // external topics; repartition sources are listed apart
  std::vector<std::string> repartition_sink_topics;
  std::vector<TopicInfo> state_changelog_topics;
  std::vector<TopicInfo> repartition_source_topics;
  std::vector<CopartitionGroup> copartition_groups;
  bool operator==(const Subtopology&) const = default;
};

struct Topology {
  int32_t epoch = 0;
  std::map<std::string, Subtopology> subtopologies;  // by id
  bool operator==(const Topology&) const = default;
};

// Every topic the topology needs to exist: source, repartition source and
// changelog topics (Kafka's StreamsTopology.requiredTopics).
std::set<std::string> required_topics(const Topology& topology);

// To and from the StreamsGroupTopology record. from_record ignores
// SourceTopicRegex (Kafka 4.4 refuses regex subscriptions before that).
Topology from_record(const protocol::StreamsGroupTopologyValue& value);
protocol::StreamsGroupTopologyValue to_record(const Topology& topology);

}  // namespace skiff::group::streams
