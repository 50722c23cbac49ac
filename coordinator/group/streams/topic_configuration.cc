// Kafka 4.4's InternalTopicManager.configureTopics (topic_configuration.h).
#include "coordinator/group/streams/topic_configuration.h"

#include <fmt/format.h>

namespace skiff::group::streams {

const char* status_name(StreamsStatus s) {
  switch (s) {
    case StreamsStatus::kStaleTopology:
      return "STALE_TOPOLOGY";
    case StreamsStatus::kMissingSourceTopics:
      return "MISSING_SOURCE_TOPICS";
    case StreamsStatus::kIncorrectlyPartitionedTopics:
      return "INCORRECTLY_PARTITIONED_TOPICS";
    case StreamsStatus::kMissingInternalTopics:
      return "MISSING_INTERNAL_TOPICS";
    case StreamsStatus::kShutdownApplication:
      return "SHUTDOWN_APPLICATION";
    case StreamsStatus::kAssignmentDelayed:
      return "ASSIGNMENT_DELAYED";
    case StreamsStatus::kMissingClientTags:
      return "MISSING_CLIENT_TAGS";
  }
  return "UNKNOWN";
}

std::string summarize_topics(const std::set<std::string>& topics) {
  if (topics.empty()) return "<none>";
  constexpr size_t kShown = 3;
  std::string out;
  size_t i = 0;
  for (auto it = topics.begin(); it != topics.end() && i < kShown; ++it, ++i) out += (i ? ", " : "") + *it;
  if (topics.size() > kShown) out += fmt::format(" and {} additional topics", topics.size() - kShown);
  return out;
}

namespace {

using Counts = std::map<std::string, int32_t>;

// The broker's count first, then what was decided for internal topics.
PartitionCountOf with_decided(const PartitionCountOf& broker, const Counts& decided) {
  return [&broker, &decided](const std::string& topic) -> std::optional<int32_t> {
    if (auto n = broker(topic)) return n;
    auto it = decided.find(topic);
    return it == decided.end() ? std::nullopt : std::optional<int32_t>(it->second);
  };
}

void throw_on_missing_source_topics(const Topology& topology, const PartitionCountOf& broker) {
  std::set<std::string> missing;
  for (const auto& [id, sub] : topology.subtopologies)
    for (const auto& t : sub.source_topics)
      if (!broker(t)) missing.insert(t);
  if (!missing.empty())
    throw TopicConfigurationFailure(StreamsStatus::kMissingSourceTopics,
                                    "Source topics " + summarize_topics(missing) + " are missing.");
}

const std::string& indexed(const std::vector<std::string>& names, int16_t i, const Subtopology& sub) {
  if (i < 0 || static_cast<size_t>(i) >= names.size())
    throw InvalidTopologyError(
        fmt::format("Copartition group of subtopology {} refers to topic index {}, which does not exist.", sub.id, i));
  return names[i];
}

std::vector<std::set<std::string>> copartition_groups(const Subtopology& sub) {
  std::vector<std::string> repartition;
  for (const auto& t : sub.repartition_source_topics) repartition.push_back(t.name);
  std::vector<std::set<std::string>> out;
  for (const auto& g : sub.copartition_groups) {
    std::set<std::string> topics;
    for (int16_t i : g.source_topics) topics.insert(indexed(sub.source_topics, i, sub));
    for (int16_t i : g.repartition_source_topics) topics.insert(indexed(repartition, i, sub));
    out.push_back(std::move(topics));
  }
  return out;
}

void enforce_all(const Topology& topology, Counts& decided, const PartitionCountOf& lookup) {
  std::set<std::string> fixed, flexible;
  for (const auto& [id, sub] : topology.subtopologies)
    for (const auto& t : sub.repartition_source_topics) (t.partitions != 0 ? fixed : flexible).insert(t.name);
  for (const auto& [id, sub] : topology.subtopologies)
    for (const auto& group : copartition_groups(sub))
      for (const auto& [t, n] : enforce_copartitioning(group, fixed, flexible, lookup)) decided[t] = n;
}

void decide_partition_counts(const Topology& topology, const PartitionCountOf& broker, Counts& decided) {
  const auto lookup = with_decided(broker, decided);
  for (const auto& [t, n] : repartition_partition_counts(topology, lookup)) decided[t] = n;
  enforce_all(topology, decided, lookup);
  for (const auto& [t, n] : changelog_partition_counts(topology, lookup)) decided[t] = n;
}

ConfiguredInternalTopic configured_topic(const TopicInfo& t, const Counts& decided) {
  ConfiguredInternalTopic c{t.name, t.partitions, std::nullopt, t.configs};
  if (t.partitions == 0) {
    auto it = decided.find(t.name);
    if (it == decided.end()) throw TopologyStateError("Number of partitions must be set for topic " + t.name);
    c.partitions = it->second;
  }
  if (t.replication_factor != 0) c.replication_factor = t.replication_factor;
  return c;
}

int32_t number_of_tasks(const Subtopology& sub, const PartitionCountOf& lookup) {
  std::optional<int32_t> most;
  auto consider = [&](const std::string& t) {
    auto n = lookup(t);
    if (!n) throw TopologyStateError("Number of partitions must be set for topic " + t);
    if (!most || *n > *most) most = n;
  };
  for (const auto& t : sub.source_topics) consider(t);
  for (const auto& t : sub.repartition_source_topics) consider(t.name);
  if (!most) throw TopologyStateError("Subtopology does not contain any source topics");
  return *most;
}

ConfiguredSubtopology configured_subtopology(const Subtopology& sub, const Counts& decided,
                                             const PartitionCountOf& lookup) {
  ConfiguredSubtopology c;
  c.number_of_tasks = number_of_tasks(sub, lookup);
  c.source_topics.insert(sub.source_topics.begin(), sub.source_topics.end());
  c.repartition_sink_topics.insert(sub.repartition_sink_topics.begin(), sub.repartition_sink_topics.end());
  for (const auto& t : sub.repartition_source_topics)
    c.repartition_source_topics[t.name] = configured_topic(t, decided);
  for (const auto& t : sub.state_changelog_topics) c.state_changelog_topics[t.name] = configured_topic(t, decided);
  return c;
}

InternalTopicToCreate to_create(const ConfiguredInternalTopic& t) {
  return InternalTopicToCreate{t.name, t.partitions, t.replication_factor.value_or(int16_t{-1}), t.configs};
}

std::map<std::string, InternalTopicToCreate> missing_internal_topics(
    const std::map<std::string, ConfiguredSubtopology>& subs, const Topology& topology,
    const PartitionCountOf& broker) {
  std::map<std::string, InternalTopicToCreate> out;
  for (const auto& [id, sub] : subs) {
    for (const auto& [name, t] : sub.repartition_source_topics) out[name] = to_create(t);
    for (const auto& [name, t] : sub.state_changelog_topics) out[name] = to_create(t);
  }
  for (const auto& topic : required_topics(topology)) {
    auto existing = broker(topic);
    auto it = out.find(topic);
    if (!existing || it == out.end()) continue;
    if (*existing != it->second.partitions)
      throw TopicConfigurationFailure(
          StreamsStatus::kIncorrectlyPartitionedTopics,
          fmt::format("Existing topic {} has different number of partitions: expected {}, found {}", topic,
                      it->second.partitions, *existing));
    out.erase(it);
  }
  return out;
}

ConfiguredTopology configure(const Topology& topology, const PartitionCountOf& broker) {
  ConfiguredTopology out;
  out.topology_epoch = topology.epoch;
  try {
    throw_on_missing_source_topics(topology, broker);
    Counts decided;
    decide_partition_counts(topology, broker, decided);
    const auto lookup = with_decided(broker, decided);
    std::map<std::string, ConfiguredSubtopology> subs;
    for (const auto& [id, sub] : topology.subtopologies) subs[id] = configured_subtopology(sub, decided, lookup);
    out.internal_topics_to_create = missing_internal_topics(subs, topology, broker);
    out.subtopologies = std::move(subs);
    if (!out.internal_topics_to_create.empty()) {
      std::set<std::string> names;
      for (const auto& [name, t] : out.internal_topics_to_create) names.insert(name);
      out.error = TopicConfigurationError{StreamsStatus::kMissingInternalTopics,
                                          "Internal topics are missing: " + summarize_topics(names)};
    }
  } catch (const TopicConfigurationFailure& e) {
    out.subtopologies.reset();
    out.internal_topics_to_create.clear();
    out.error = TopicConfigurationError{e.status, e.what()};
  }
  return out;
}

}  // namespace

ConfigureResult configure_topics(const Topology& topology, const PartitionCountOf& broker_topics) {
  try {
    // Kafka resolves the copartition groups first: a bad index fails even
    // when source topics are missing.
    for (const auto& [id, sub] : topology.subtopologies) copartition_groups(sub);
    return ConfigureResult{configure(topology, broker_topics), std::nullopt};
  } catch (const InvalidTopologyError& e) {
    return ConfigureResult{{}, TopologyError{ErrorCode::kStreamsInvalidTopology, e.what()}};
  } catch (const TopologyStateError& e) {
    return ConfigureResult{{}, TopologyError{ErrorCode::kUnknownServerError, e.what()}};
  }
}

}  // namespace skiff::group::streams
