#include "apps/rest_proxy/v2_kafka.h"

#include <algorithm>

#include "apps/rest_proxy/rest_errors.h"
#include "client/records.h"
#include "protocol/error_codes.h"
#include "protocol/error_names.h"
#include "protocol/generated/describe_configs_request.h"
#include "protocol/generated/describe_configs_response.h"
#include "protocol/generated/fetch_request.h"
#include "protocol/generated/list_offsets_request.h"
#include "protocol/generated/list_offsets_response.h"
#include "protocol/generated/metadata_request.h"
#include "protocol/generated/metadata_response.h"
#include "protocol/generated/offset_commit_request.h"
#include "protocol/generated/offset_commit_response.h"
#include "protocol/generated/offset_fetch_request.h"
#include "protocol/generated/offset_fetch_response.h"
#include "protocol/generated/produce_request.h"
#include "protocol/generated/produce_response.h"

namespace skiff::restproxy {
namespace {

bool retriable(ErrorCode e) {
  switch (e) {
    case ErrorCode::kNotLeaderOrFollower:
    case ErrorCode::kLeaderNotAvailable:
    case ErrorCode::kRequestTimedOut:
    case ErrorCode::kNotEnoughReplicas:
    case ErrorCode::kCoordinatorNotAvailable:
    case ErrorCode::kNotCoordinator:
    case ErrorCode::kCoordinatorLoadInProgress:
      return true;
    default:
      return false;
  }
}

}  // namespace

V2Error v2_error_of(int16_t code, const std::optional<std::string>& message) {
  const std::string name(protocol::error_name(code));
  const std::string text = message && !message->empty() ? *message : name;
  switch (static_cast<ErrorCode>(code)) {
    case ErrorCode::kUnknownTopicOrPartition:
      return {404, 40401, "Topic not found."};
    case ErrorCode::kTopicAuthorizationFailed:
    case ErrorCode::kGroupAuthorizationFailed:
    case ErrorCode::kClusterAuthorizationFailed:
      return {403, 40301, text};
    case ErrorCode::kSaslAuthenticationFailed:
      return {401, 40101, text};
    default:
      break;
  }
  if (retriable(static_cast<ErrorCode>(code))) return {500, 50003, text};
  return {500, 50002, "Kafka error: " + text};
}

void throw_v2(int16_t code, const std::optional<std::string>& message) {
  if (code == 0) return;
  const V2Error e = v2_error_of(code, message);
  throw RestError(e.status, e.error_code, e.message);
}

ClusterMeta metadata(client::InProcessClient& kafka, const std::vector<std::string>* only) {
  const auto req = client::metadata_request(only);
  auto resp = kafka.call<protocol::MetadataResponse>(req, 12);
  ClusterMeta out;
  for (const auto& b : resp.brokers) out.brokers.push_back(b.node_id);
  for (const auto& t : resp.topics) {
    if (only) throw_v2(t.error_code, t.name ? "topic " + *t.name : std::optional<std::string>());
    if (t.error_code != 0 || !t.name) continue;
    TopicMeta& m = out.topics[*t.name];
    m.name = *t.name;
    m.internal = t.is_internal;
    for (const auto& p : t.partitions) {
      m.partitions.push_back({p.partition_index, p.leader_id, p.replica_nodes, p.isr_nodes});
    }
    std::sort(m.partitions.begin(), m.partitions.end(),
              [](const PartitionMeta& a, const PartitionMeta& b) { return a.partition < b.partition; });
  }
  return out;
}

int32_t partition_count(client::InProcessClient& kafka, const std::string& topic) {
  const std::vector<std::string> only{topic};
  auto meta = metadata(kafka, &only);
  auto it = meta.topics.find(topic);
  if (it == meta.topics.end()) throw RestError(404, 40401, "Topic not found.");
  return static_cast<int32_t>(it->second.partitions.size());
}

std::map<std::string, std::optional<std::string>> topic_configs(client::InProcessClient& kafka,
                                                                const std::string& topic) {
  protocol::DescribeConfigsRequest req;
  auto& r = req.resources.emplace_back();
  r.resource_type = 2;  // TOPIC
  r.resource_name = topic;
  r.configuration_keys = std::nullopt;
  auto resp = kafka.call<protocol::DescribeConfigsResponse>(req, 4);
  std::map<std::string, std::optional<std::string>> out;
  for (const auto& result : resp.results) {
    throw_v2(result.error_code, result.error_message);
    for (const auto& c : result.configs) out[c.name] = c.value;
  }
  return out;
}

std::map<TopicPartition, int64_t> list_offsets(client::InProcessClient& kafka,
                                               const std::set<TopicPartition>& partitions, int64_t timestamp) {
  std::map<TopicPartition, int64_t> out;
  if (partitions.empty()) return out;
  protocol::ListOffsetsRequest req;
  req.replica_id = -1;
  std::map<std::string, std::vector<int32_t>> by_topic;
  for (const auto& [t, p] : partitions) by_topic[t].push_back(p);
  for (const auto& [topic, ps] : by_topic) {
    auto& t = req.topics.emplace_back();
    t.name = topic;
    for (int32_t p : ps) {
      auto& lp = t.partitions.emplace_back();
      lp.partition_index = p;
      lp.timestamp = timestamp;
    }
  }
  auto resp = kafka.call<protocol::ListOffsetsResponse>(req, 7);
  for (const auto& t : resp.topics) {
    for (const auto& p : t.partitions) {
      throw_v2(p.error_code, "partition " + t.name + "-" + std::to_string(p.partition_index));
      out[{t.name, p.partition_index}] = p.offset;
    }
  }
  return out;
}

std::map<int32_t, ProduceResult> produce(client::InProcessClient& kafka, const std::string& topic,
                                         const std::map<int32_t, std::vector<client::ProducerRecord>>& batches) {
  protocol::ProduceRequest req;
  req.acks = -1;
  req.timeout_ms = 30000;
  auto& t = req.topic_data.emplace_back();
  t.name = topic;
  std::vector<std::vector<uint8_t>> bytes;  // kept alive until the call returns
  bytes.reserve(batches.size());
  for (const auto& [partition, records] : batches) {
    bytes.push_back(client::encode_record_batch(records));
    auto& p = t.partition_data.emplace_back();
    p.index = partition;
    p.records = protocol::Records::bytes(bytes.back());
  }
  auto resp = kafka.call<protocol::ProduceResponse>(req, 9);
  std::map<int32_t, ProduceResult> out;
  for (const auto& tr : resp.responses) {
    for (const auto& pr : tr.partition_responses) {
      out[pr.index] = {pr.error_code, pr.error_message, pr.base_offset};
    }
  }
  return out;
}

protocol::FetchResponse fetch(client::InProcessClient& kafka, const std::map<TopicPartition, int64_t>& positions,
                              int32_t max_wait_ms, int32_t min_bytes, int32_t max_bytes) {
  protocol::FetchRequest req;
  req.replica_id = -1;
  req.max_wait_ms = max_wait_ms;
  req.min_bytes = min_bytes;
  req.max_bytes = max_bytes;
  req.isolation_level = 0;
  for (const auto& [tp, offset] : positions) {
    if (req.topics.empty() || req.topics.back().topic != tp.first) req.topics.emplace_back().topic = tp.first;
    auto& p = req.topics.back().partitions.emplace_back();
    p.partition = tp.second;
    p.fetch_offset = offset;
    p.partition_max_bytes = max_bytes;
  }
  return kafka.call<protocol::FetchResponse>(req, 12);
}

std::map<TopicPartition, int16_t> commit_offsets(client::InProcessClient& kafka, const std::string& group,
                                                 int32_t generation, const std::string& member_id,
                                                 const std::map<TopicPartition, int64_t>& offsets) {
  std::map<TopicPartition, int16_t> out;
  if (offsets.empty()) return out;
  protocol::OffsetCommitRequest req;
  req.group_id = group;
  req.generation_id_or_member_epoch = generation;
  req.member_id = member_id;
  for (const auto& [tp, offset] : offsets) {
    if (req.topics.empty() || req.topics.back().name != tp.first) req.topics.emplace_back().name = tp.first;
    auto& p = req.topics.back().partitions.emplace_back();
    p.partition_index = tp.second;
    p.committed_offset = offset;
  }
  auto resp = kafka.call<protocol::OffsetCommitResponse>(req, 8);
  for (const auto& t : resp.topics) {
    for (const auto& p : t.partitions) out[{t.name, p.partition_index}] = p.error_code;
  }
  return out;
}

std::map<TopicPartition, Committed> committed_offsets(client::InProcessClient& kafka, const std::string& group,
                                                      const std::set<TopicPartition>& partitions) {
  std::map<TopicPartition, Committed> out;
  if (partitions.empty()) return out;
  protocol::OffsetFetchRequest req;
  req.group_id = group;
  std::vector<protocol::OffsetFetchRequest::OffsetFetchRequestTopic> topics;
  for (const auto& [t, p] : partitions) {
    if (topics.empty() || topics.back().name != t) topics.emplace_back().name = t;
    topics.back().partition_indexes.push_back(p);
  }
  req.topics = std::move(topics);
  auto resp = kafka.call<protocol::OffsetFetchResponse>(req, 7);
  throw_v2(resp.error_code);
  for (const auto& t : resp.topics) {
    for (const auto& p : t.partitions) {
      throw_v2(p.error_code);
      out[{t.name, p.partition_index}] = {p.committed_offset, p.metadata.value_or("")};
    }
  }
  return out;
}

}  // namespace skiff::restproxy
