// Kafka 4.4's RepartitionTopics, CopartitionedTopicsEnforcer and
// ChangelogTopics (topic_configuration.h): the partition counts of a
// topology's internal topics.
#include <fmt/format.h>

#include "coordinator/group/streams/topic_configuration.h"

namespace skiff::group::streams {

namespace {

// Java's Map.toString of a sorted map: {a=1, b=2}.
std::string java_map(const std::map<std::string, int32_t>& m) {
  std::string out = "{";
  for (const auto& [k, v] : m) out += (out.size() > 1 ? ", " : "") + k + "=" + std::to_string(v);
  return out + "}";
}

// Java's Set.toString: [a, b].
std::string java_set(const std::set<std::string>& s) { return "[" + fmt::format("{}", fmt::join(s, ", ")) + "]"; }

std::set<std::string> missing_external_sources(const Subtopology& sub, const PartitionCountOf& topics) {
  std::set<std::string> missing(sub.source_topics.begin(), sub.source_topics.end());
  for (const auto& t : sub.repartition_source_topics) missing.erase(t.name);
  std::erase_if(missing, [&](const std::string& t) { return topics(t).has_value(); });
  return missing;
}

// The largest partition count among the subtopology's inputs known so far.
std::optional<int32_t> sink_partition_count(const Subtopology& sub, const std::map<std::string, int32_t>& counts,
                                            const PartitionCountOf& topics) {
  std::optional<int32_t> best;
  auto consider = [&](std::optional<int32_t> n) {
    if (n && (!best || *n > *best)) best = n;
  };
  for (const auto& t : sub.repartition_source_topics) {
    auto it = counts.find(t.name);
    consider(it == counts.end() ? std::nullopt : std::optional<int32_t>(it->second));
  }
  for (const auto& t : sub.source_topics) consider(topics(t));
  return best;
}

void derive_sink_counts(const Topology& topology, std::map<std::string, int32_t>& counts,
                        const PartitionCountOf& topics) {
  bool needed = true;
  while (needed) {
    needed = false;
    bool progress = false;
    for (const auto& [id, sub] : topology.subtopologies) {
      for (const auto& sink : sub.repartition_sink_topics) {
        if (counts.contains(sink)) continue;
        if (auto n = sink_partition_count(sub, counts, topics)) {
          counts[sink] = *n;
          progress = true;
        } else {
          needed = true;
        }
      }
    }
    if (needed && !progress)
      throw InvalidTopologyError(
          "Failed to compute number of partitions for all repartition topics. There may be loops in the topology "
          "that cannot be resolved.");
  }
}

int32_t partition_count_or_fail(const PartitionCountOf& topics, const std::string& topic, const char* what) {
  auto n = topics(topic);
  if (!n) throw TopologyStateError(what + topic);
  return *n;
}

}  // namespace

std::map<std::string, int32_t> repartition_partition_counts(const Topology& topology, const PartitionCountOf& topics) {
  std::set<std::string> missing;
  for (const auto& [id, sub] : topology.subtopologies) missing.merge(missing_external_sources(sub, topics));
  if (!missing.empty()) throw TopologyStateError(fmt::format("Missing source topics: {}", fmt::join(missing, ", ")));
  std::map<std::string, int32_t> counts;
  for (const auto& [id, sub] : topology.subtopologies)
    for (const auto& t : sub.repartition_source_topics)
      if (t.partitions != 0) counts[t.name] = t.partitions;
  derive_sink_counts(topology, counts, topics);
  for (const auto& [id, sub] : topology.subtopologies)
    for (const auto& t : sub.repartition_source_topics)
      if (!counts.contains(t.name))
        throw InvalidTopologyError(
            "Failed to compute number of partitions for all repartition topics, because a repartition source topic "
            "is never used as a sink topic.");
  return counts;
}

namespace {

const char* const kNotSet = "Number of partitions is not set for topic: ";

std::string not_same_message(const std::map<std::string, int32_t>& counts) {
  return "Following topics do not have the same number of partitions: [" + java_map(counts) + "]";
}

// Every fixed repartition topic of the topology (not only the group's) must
// have the same count, as Kafka checks it.
int32_t same_fixed_count(const std::map<std::string, int32_t>& repartition, const std::set<std::string>& fixed,
                         const PartitionCountOf& topics) {
  const int32_t first = partition_count_or_fail(topics, *fixed.begin(), kNotSet);
  for (const auto& t : fixed)
    if (partition_count_or_fail(topics, t, kNotSet) != first)
      throw TopicConfigurationFailure(StreamsStatus::kIncorrectlyPartitionedTopics, not_same_message(repartition));
  return first;
}

int32_t max_count(const std::map<std::string, int32_t>& repartition) {
  int32_t best = 0;
  for (const auto& [t, n] : repartition) best = std::max(best, n);
  if (best == 0) {
    std::set<std::string> names;
    for (const auto& [t, n] : repartition) names.insert(t);
    throw InvalidTopologyError("All topics in the copartition group had undefined partition number: " +
                               java_set(names));
  }
  return best;
}

int32_t same_external_count(const std::map<std::string, int32_t>& external) {
  const int32_t first = external.begin()->second;
  for (const auto& [t, n] : external)
    if (n != first)
      throw TopicConfigurationFailure(StreamsStatus::kIncorrectlyPartitionedTopics, not_same_message(external));
  return first;
}

}  // namespace

std::map<std::string, int32_t> enforce_copartitioning(const std::set<std::string>& group,
                                                      const std::set<std::string>& fixed,
                                                      const std::set<std::string>& flexible,
                                                      const PartitionCountOf& topics) {
  if (group.empty()) return {};
  std::map<std::string, int32_t> repartition, external;
  for (const auto& t : group)
    ((fixed.contains(t) || flexible.contains(t)) ? repartition : external)[t] =
        partition_count_or_fail(topics, t, kNotSet);
  int32_t n = 0;
  if (external.empty())
    n = fixed.empty() ? max_count(repartition) : same_fixed_count(repartition, fixed, topics);
  else
    n = same_external_count(external);
  std::map<std::string, int32_t> out;
  for (const auto& [t, count] : repartition) {
    out[t] = n;
    if (fixed.contains(t) && count != n)
      throw TopicConfigurationFailure(
          StreamsStatus::kIncorrectlyPartitionedTopics,
          fmt::format("Number of partitions [{}] of repartition topic [{}] doesn't match number of partitions [{}] "
                      "of the source topic.",
                      count, t, n));
  }
  return out;
}

std::map<std::string, int32_t> changelog_partition_counts(const Topology& topology, const PartitionCountOf& topics) {
  std::map<std::string, int32_t> out;
  for (const auto& [id, sub] : topology.subtopologies) {
    std::optional<int32_t> most;
    auto consider = [&](const std::string& t) {
      most = std::max(most.value_or(0), partition_count_or_fail(topics, t, "No partition count for source topic "));
    };
    for (const auto& t : sub.source_topics) consider(t);
    for (const auto& t : sub.repartition_source_topics) consider(t.name);
    if (!most) throw InvalidTopologyError("No source topics found for subtopology " + sub.id);
    for (const auto& t : sub.state_changelog_topics) out[t.name] = *most;
  }
  return out;
}

}  // namespace skiff::group::streams
