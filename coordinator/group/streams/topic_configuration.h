// The configuration of a streams group's topics (Kafka 4.4's
// InternalTopicManager.configureTopics with RepartitionTopics,
// CopartitionedTopicsEnforcer and ChangelogTopics): from the group's
// topology and the broker's topics, decide the partition counts of the
// repartition and changelog topics, check copartitioning, and say whether the
// topology is ready, which internal topics must be created (with the
// replication factor and configs the topology carries), or which status the
// heartbeat reports:
//   MISSING_SOURCE_TOPICS           "Source topics a, b are missing."
//   INCORRECTLY_PARTITIONED_TOPICS  an existing internal topic with another
//                                   partition count, or copartitioned topics
//                                   that differ
//   MISSING_INTERNAL_TOPICS         "Internal topics are missing: ..." (with
//                                   internal_topics_to_create)
// A topology that cannot be configured at all (a repartition source topic
// that no subtopology writes, a loop, ...) is STREAMS_INVALID_TOPOLOGY with
// Kafka's message; an inconsistency Kafka treats as a bug (its
// IllegalStateException) is UNKNOWN_SERVER_ERROR.
//
// Topic lists in messages are sorted (Kafka's come from hash sets, in no
// stated order); at most three topics are named, then "and N additional
// topics", as Kafka.
//
// Threads: pure functions.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>

#include "coordinator/group/streams/streams_topology.h"
#include "protocol/error_codes.h"

namespace skiff::group::streams {

// StreamsGroupHeartbeatResponse's Status codes (Kafka's
// StreamsGroupHeartbeatResponse.Status).
enum class StreamsStatus : int8_t {
  kStaleTopology = 0,
  kMissingSourceTopics = 1,
  kIncorrectlyPartitionedTopics = 2,
  kMissingInternalTopics = 3,
  kShutdownApplication = 4,
  kAssignmentDelayed = 5,
  kMissingClientTags = 6,
};
const char* status_name(StreamsStatus s);

// A topic's partition count on the broker; nothing when it does not exist.
using PartitionCountOf = std::function<std::optional<int32_t>(const std::string& topic)>;

struct ConfiguredInternalTopic {
  std::string name;
  int32_t partitions = 0;
  std::optional<int16_t> replication_factor;  // nothing: the broker's default
  std::map<std::string, std::string> configs;
  bool operator==(const ConfiguredInternalTopic&) const = default;
};

struct ConfiguredSubtopology {
  int32_t number_of_tasks = 0;  // the most partitions of its source topics
  std::set<std::string> source_topics;
  std::map<std::string, ConfiguredInternalTopic> repartition_source_topics;
  std::set<std::string> repartition_sink_topics;
  std::map<std::string, ConfiguredInternalTopic> state_changelog_topics;
  bool operator==(const ConfiguredSubtopology&) const = default;
};

// What a CreateTopics request for a missing internal topic carries
// (replication_factor -1: the broker's default).
struct InternalTopicToCreate {
  std::string name;
  int32_t partitions = 0;
  int16_t replication_factor = -1;
  std::map<std::string, std::string> configs;
  bool operator==(const InternalTopicToCreate&) const = default;
};

struct TopicConfigurationError {
  StreamsStatus status;
  std::string message;
};

struct ConfiguredTopology {
  int32_t topology_epoch = 0;
  // Present unless the configuration failed (missing source topics,
  // incorrectly partitioned topics).
  std::optional<std::map<std::string, ConfiguredSubtopology>> subtopologies;
  std::map<std::string, InternalTopicToCreate> internal_topics_to_create;
  std::optional<TopicConfigurationError> error;
  // Tasks may be assigned: every topic exists with the right partitions.
  bool ready() const { return !error.has_value(); }
};

// The topology is refused as a whole: the heartbeat's error.
struct TopologyError {
  ErrorCode code = ErrorCode::kStreamsInvalidTopology;
  std::string message;
};

struct ConfigureResult {
  ConfiguredTopology configured;
  std::optional<TopologyError> error;  // when set, `configured` is meaningless
};

ConfigureResult configure_topics(const Topology& topology, const PartitionCountOf& broker_topics);

// ---- The steps, as Kafka's classes (exposed for their tests). They throw
// the exceptions below, which configure_topics turns into its result.

struct InvalidTopologyError : std::runtime_error {  // STREAMS_INVALID_TOPOLOGY
  using std::runtime_error::runtime_error;
};
struct TopicConfigurationFailure : std::runtime_error {  // a status
  TopicConfigurationFailure(StreamsStatus s, const std::string& m) : std::runtime_error(m), status(s) {}
  StreamsStatus status;
};
struct TopologyStateError : std::runtime_error {  // Kafka's IllegalStateException
  using std::runtime_error::runtime_error;
};

// RepartitionTopics.setup: every repartition source topic's partition count,
// fixed by the topology or derived, to a fixed point, from the largest
// source topic of the subtopology that writes it. `topics` must know every
// external source topic.
std::map<std::string, int32_t> repartition_partition_counts(const Topology& topology, const PartitionCountOf& topics);

// CopartitionedTopicsEnforcer.enforce: the partition count every repartition
// topic of `group` must have; `fixed` and `flexible` are the topology's
// repartition source topics with and without a partition count of their own.
std::map<std::string, int32_t> enforce_copartitioning(const std::set<std::string>& group,
                                                      const std::set<std::string>& fixed,
                                                      const std::set<std::string>& flexible,
                                                      const PartitionCountOf& topics);

// ChangelogTopics.setup: each changelog topic gets the largest partition
// count of its subtopology's source and repartition source topics.
std::map<std::string, int32_t> changelog_partition_counts(const Topology& topology, const PartitionCountOf& topics);

// Kafka's summarizeTopics: "a, b, c and 2 additional topics", "<none>".
std::string summarize_topics(const std::set<std::string>& topics);

}  // namespace skiff::group::streams
