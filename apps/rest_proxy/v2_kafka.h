// The Kafka requests behind the v2 API, each one call of the in-process
// client (client/in_process_client.h) as the HTTP caller's principal, and
// Confluent's mapping of Kafka's errors onto v2 error codes (rest-utils'
// KafkaExceptionMapper: 40401 unknown topic, 40301 not authorized, 50003
// retriable, 50002 any other Kafka error).
// Threads: any; each function uses the client it is given.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "apps/rest_proxy/consumer_positions.h"
#include "client/in_process_client.h"
#include "client/records.h"
#include "protocol/generated/fetch_response.h"

namespace skiff::restproxy {

struct V2Error {
  int status = 500;
  int error_code = 50002;
  std::string message;
};
// Kafka error `code` (non-zero) as Confluent's v2 answer.
V2Error v2_error_of(int16_t code, const std::optional<std::string>& message = std::nullopt);
// Throws the RestError of v2_error_of (no-op for 0).
void throw_v2(int16_t code, const std::optional<std::string>& message = std::nullopt);

struct PartitionMeta {
  int32_t partition = 0;
  int32_t leader = -1;
  std::vector<int32_t> replicas, isr;
};
struct TopicMeta {
  std::string name;
  bool internal = false;
  std::vector<PartitionMeta> partitions;
};
struct ClusterMeta {
  std::vector<int32_t> brokers;
  std::map<std::string, TopicMeta> topics;
};

// Metadata of `only` (every topic when null); an unknown topic in `only`
// is 404 / 40401 "Topic not found.".
ClusterMeta metadata(client::InProcessClient& kafka, const std::vector<std::string>* only);
// The partition count of `topic` (404 / 40401 if unknown).
int32_t partition_count(client::InProcessClient& kafka, const std::string& topic);
// A topic's configs (DescribeConfigs): name -> value.
std::map<std::string, std::optional<std::string>> topic_configs(client::InProcessClient& kafka,
                                                                const std::string& topic);

// ListOffsets of `partitions` at `timestamp` (-2 earliest, -1 latest).
std::map<TopicPartition, int64_t> list_offsets(client::InProcessClient& kafka,
                                               const std::set<TopicPartition>& partitions, int64_t timestamp);

struct ProduceResult {
  int16_t error_code = 0;
  std::optional<std::string> error_message;
  int64_t base_offset = -1;
};
// One Produce (acks=all) of one batch per partition of `topic`.
std::map<int32_t, ProduceResult> produce(client::InProcessClient& kafka, const std::string& topic,
                                         const std::map<int32_t, std::vector<client::ProducerRecord>>& batches);

// One read_uncommitted Fetch of `positions`.
protocol::FetchResponse fetch(client::InProcessClient& kafka, const std::map<TopicPartition, int64_t>& positions,
                              int32_t max_wait_ms, int32_t min_bytes, int32_t max_bytes);

// OffsetCommit of `offsets` for `group` (generation -1 and member "" for
// a consumer that assigns its partitions itself): the error of each.
std::map<TopicPartition, int16_t> commit_offsets(client::InProcessClient& kafka, const std::string& group,
                                                 int32_t generation, const std::string& member_id,
                                                 const std::map<TopicPartition, int64_t>& offsets);
struct Committed {
  int64_t offset = -1;
  std::string metadata;
};
// OffsetFetch of `partitions` for `group` (offset -1: none committed).
std::map<TopicPartition, Committed> committed_offsets(client::InProcessClient& kafka, const std::string& group,
                                                      const std::set<TopicPartition>& partitions);

}  // namespace skiff::restproxy
