// The topic endpoints: list, describe, create, delete, configs
// (docs/console-api.md).
#include "apps/console/console_endpoints.h"
#include "client/records.h"
#include "common/metrics.h"
#include "protocol/generated/create_topics_request.h"
#include "protocol/generated/create_topics_response.h"
#include "protocol/generated/delete_topics_request.h"
#include "protocol/generated/delete_topics_response.h"
#include "protocol/generated/describe_configs_request.h"
#include "protocol/generated/describe_configs_response.h"
#include "protocol/generated/describe_log_dirs_request.h"
#include "protocol/generated/describe_log_dirs_response.h"
#include "protocol/generated/incremental_alter_configs_request.h"
#include "protocol/generated/incremental_alter_configs_response.h"
#include "protocol/generated/metadata_request.h"
#include "protocol/generated/metadata_response.h"

namespace skiff::console {
namespace {

constexpr int8_t kTopicResource = 2;

// Bytes on disk per (topic, partition), from DescribeLogDirs: of `only`'s
// partitions, or of every partition.
std::map<std::pair<std::string, int32_t>, int64_t> partition_sizes(
    client::InProcessClient& kafka, const std::map<std::string, std::vector<int32_t>>* only = nullptr) {
  protocol::DescribeLogDirsRequest req;
  if (only) {
    std::vector<protocol::DescribeLogDirsRequest::DescribableLogDirTopic> topics;
    for (const auto& [name, partitions] : *only) {
      auto& t = topics.emplace_back();
      t.topic = name;
      t.partitions = partitions;
    }
    req.topics = std::move(topics);
  } else {
    req.topics = std::nullopt;
  }
  auto resp = kafka.call<protocol::DescribeLogDirsResponse>(req, 4);
  std::map<std::pair<std::string, int32_t>, int64_t> out;
  for (const auto& d : resp.results)
    for (const auto& t : d.topics)
      for (const auto& p : t.partitions) out[{t.name, p.partition_index}] += p.partition_size;
  return out;
}

// A per-topic counter's values, by topic.
std::map<std::string, uint64_t> per_topic(const metrics::Registry* registry, const char* name) {
  std::map<std::string, uint64_t> out;
  const auto* family = registry ? registry->find_counter(name) : nullptr;
  if (family)
    family->for_each([&](const metrics::LabelValues& l, const metrics::Counter& c) { out[l[0]] = c.value(); });
  return out;
}

std::map<std::string, std::vector<int32_t>> all_partitions(const std::map<std::string, int32_t>& topics) {
  std::map<std::string, std::vector<int32_t>> out;
  for (const auto& [name, count] : topics)
    for (int32_t p = 0; p < count; ++p) out[name].push_back(p);
  return out;
}

}  // namespace

std::string list_topics(ConsoleCall& call) {
  const auto req = client::metadata_request(nullptr);
  auto meta = call.kafka.call<protocol::MetadataResponse>(req, 12);
  std::map<std::string, int32_t> counts;
  for (const auto& t : meta.topics)
    if (t.error_code == 0 && t.name) counts[*t.name] = static_cast<int32_t>(t.partitions.size());
  const auto parts = all_partitions(counts);
  const auto starts = list_offsets(call.kafka, parts, -2);
  const auto ends = list_offsets(call.kafka, parts, -1);
  const auto sizes = partition_sizes(call.kafka);
  const auto bytes_in = per_topic(call.broker.metrics, "kafka_server_brokertopicmetrics_bytesin_total");
  const auto messages_in = per_topic(call.broker.metrics, "kafka_server_brokertopicmetrics_messagesin_total");
  JsonWriter w;
  w.begin_object().key("topics").begin_array();
  for (const auto& t : meta.topics) {
    if (t.error_code != 0 || !t.name) continue;
    int64_t size = 0, messages = 0;
    for (const auto& p : t.partitions) {
      const std::pair<std::string, int32_t> key{*t.name, p.partition_index};
      if (auto s = sizes.find(key); s != sizes.end()) size += s->second;
      auto a = starts.find(key), b = ends.find(key);
      if (a != starts.end() && b != ends.end() && a->second >= 0 && b->second >= a->second)
        messages += b->second - a->second;
    }
    const size_t rf = t.partitions.empty() ? 0 : t.partitions.front().replica_nodes.size();
    auto in = bytes_in.find(*t.name);
    auto msgs = messages_in.find(*t.name);
    w.begin_object().field("name", *t.name).field("internal", t.is_internal);
    w.field("partitions", static_cast<int64_t>(t.partitions.size()))
        .field("replication_factor", static_cast<int64_t>(rf));
    w.field("size_bytes", size).field("messages", messages);
    w.field("bytes_in_total", in == bytes_in.end() ? uint64_t{0} : in->second);
    w.field("messages_in_total", msgs == messages_in.end() ? uint64_t{0} : msgs->second).end_object();
  }
  return w.end_array().end_object().take();
}

std::string describe_topic(ConsoleCall& call) {
  const std::string name = call.required_query("name");
  const std::vector<std::string> named{name};
  const auto req = client::metadata_request(&named);
  auto meta = call.kafka.call<protocol::MetadataResponse>(req, 12);
  if (meta.topics.empty()) not_found("no topic " + name);
  const auto& topic = meta.topics.front();
  client::throw_if_kafka_error(topic.error_code, "topic " + name);
  std::map<std::string, std::vector<int32_t>> parts;
  for (const auto& p : topic.partitions) parts[name].push_back(p.partition_index);
  const auto starts = list_offsets(call.kafka, parts, -2);
  const auto ends = list_offsets(call.kafka, parts, -1);
  const auto stable = list_offsets(call.kafka, parts, -1, true);
  const auto local_starts = list_offsets(call.kafka, parts, -4);  // tiered storage: the local log start
  const auto remote_ends = list_offsets(call.kafka, parts, -5);   // and the highest offset in remote storage
  const auto sizes = partition_sizes(call.kafka, &parts);

  protocol::DescribeConfigsRequest dc;
  auto& r = dc.resources.emplace_back();
  r.resource_type = kTopicResource;
  r.resource_name = name;
  r.configuration_keys = std::nullopt;
  auto configs = call.kafka.call<protocol::DescribeConfigsResponse>(dc, 4);

  JsonWriter w;
  w.begin_object().field("name", name).field("internal", topic.is_internal);
  w.field("topic_id", topic.topic_id.to_string()).key("partitions").begin_array();
  for (const auto& p : topic.partitions) {
    const std::pair<std::string, int32_t> key{name, p.partition_index};
    auto size = sizes.find(key);
    w.begin_object().field("partition", p.partition_index).field("leader", p.leader_id);
    w.field("log_start_offset", starts.count(key) ? starts.at(key) : int64_t{-1});
    w.field("high_watermark", ends.count(key) ? ends.at(key) : int64_t{-1});
    w.field("last_stable_offset", stable.count(key) ? stable.at(key) : int64_t{-1});
    w.field("local_log_start_offset", local_starts.count(key) ? local_starts.at(key) : int64_t{-1});
    w.field("remote_end_offset", remote_ends.count(key) ? remote_ends.at(key) : int64_t{-1});
    w.field("size_bytes", size == sizes.end() ? int64_t{0} : size->second).end_object();
  }
  w.end_array().key("configs").begin_array();
  for (const auto& result : configs.results) {
    client::throw_if_kafka_error(result.error_code, result.error_message);
    write_config_entries(w, result.configs);
  }
  return w.end_array().end_object().take();
}

std::string create_topic(ConsoleCall& call) {
  protocol::CreateTopicsRequest req;
  auto& t = req.topics.emplace_back();
  t.name = call.required_string("name");
  t.num_partitions = static_cast<int32_t>(call.body_int("partitions", -1));
  t.replication_factor = static_cast<int16_t>(call.body_int("replication_factor", -1));
  if (const JsonValue* configs = call.body.find("configs"); configs && configs->kind == JsonValue::Kind::kObject) {
    for (const auto& m : configs->members) {
      if (m.value.kind != JsonValue::Kind::kString) bad_request("config " + m.name + " is not a string");
      auto& c = t.configs.emplace_back();
      c.name = m.name;
      c.value = m.value.string;
    }
  }
  req.timeout_ms = 30000;
  auto resp = call.kafka.call<protocol::CreateTopicsResponse>(req, 7);
  for (const auto& r : resp.topics) client::throw_if_kafka_error(r.error_code, r.error_message);
  return JsonWriter().begin_object().field("name", t.name).end_object().take();
}

std::string delete_topic(ConsoleCall& call) {
  protocol::DeleteTopicsRequest req;
  const std::string name = call.required_string("name");
  req.topics.emplace_back().name = name;
  req.timeout_ms = 30000;
  auto resp = call.kafka.call<protocol::DeleteTopicsResponse>(req, 6);
  for (const auto& r : resp.responses) client::throw_if_kafka_error(r.error_code, r.error_message);
  return JsonWriter().begin_object().field("name", name).end_object().take();
}

std::string alter_topic_configs(ConsoleCall& call) {
  protocol::IncrementalAlterConfigsRequest req;
  auto& r = req.resources.emplace_back();
  r.resource_type = kTopicResource;
  r.resource_name = call.required_string("name");
  if (const JsonValue* set = call.body.find("set"); set && set->kind == JsonValue::Kind::kObject) {
    for (const auto& m : set->members) {
      if (m.value.kind != JsonValue::Kind::kString) bad_request("config " + m.name + " is not a string");
      auto& c = r.configs.emplace_back();
      c.name = m.name;
      c.config_operation = 0;  // SET
      c.value = m.value.string;
    }
  }
  if (const JsonValue* del = call.body.find("delete"); del && del->kind == JsonValue::Kind::kArray) {
    for (const auto& v : del->array) {
      if (v.kind != JsonValue::Kind::kString) bad_request("'delete' holds a non-string");
      auto& c = r.configs.emplace_back();
      c.name = v.string;
      c.config_operation = 1;  // DELETE
      c.value = std::nullopt;
    }
  }
  if (r.configs.empty()) bad_request("nothing to change: give 'set' or 'delete'");
  auto resp = call.kafka.call<protocol::IncrementalAlterConfigsResponse>(req, 1);
  for (const auto& result : resp.responses) client::throw_if_kafka_error(result.error_code, result.error_message);
  return JsonWriter().begin_object().field("name", r.resource_name).end_object().take();
}

}  // namespace skiff::console
