// v3 topics, partitions and topic configs (kafka-rest's TopicsResource,
// PartitionsResource, TopicConfigsResource, AlterTopicConfigBatchAction):
// Metadata, CreateTopics, DeleteTopics, DescribeConfigs and
// IncrementalAlterConfigs through RestKafka.
#include <algorithm>

#include "apps/rest_proxy/rest_errors.h"
#include "apps/rest_proxy/rest_kafka_errors.h"
#include "apps/rest_proxy/v3_api.h"
#include "apps/rest_proxy/v3_configs.h"
#include "apps/rest_proxy/v3_json.h"
#include "client/records.h"
#include "protocol/generated/create_topics_request.h"
#include "protocol/generated/create_topics_response.h"
#include "protocol/generated/delete_topics_request.h"
#include "protocol/generated/delete_topics_response.h"
#include "protocol/generated/metadata_request.h"
#include "protocol/generated/metadata_response.h"

namespace skiff::restproxy {
namespace {

using Topic = protocol::MetadataResponse::MetadataResponseTopic;
using Partition = protocol::MetadataResponse::MetadataResponsePartition;

network::HttpResponse no_content() { return json_response("", 204); }

// Every topic (nullopt) or the one named; an unknown one is 404 (40403).
std::vector<Topic> topics_metadata(client::InProcessClient& kafka, const std::optional<std::string>& name) {
  const std::vector<std::string> named = name ? std::vector<std::string>{*name} : std::vector<std::string>{};
  const auto req = client::metadata_request(name ? &named : nullptr);
  auto resp = kafka.call<protocol::MetadataResponse>(req, 12);
  std::vector<Topic> out;
  for (auto& t : resp.topics) {
    if (name) throw_kafka_error(t.error_code, std::nullopt);
    if (t.error_code == 0 && t.name) out.push_back(std::move(t));
  }
  if (name && out.empty()) throw kafka_rest_error(3, std::nullopt);
  std::sort(out.begin(), out.end(), [](const Topic& a, const Topic& b) { return *a.name < *b.name; });
  return out;
}

void write_topic(JsonWriter& w, const V3Call& c, const std::string& name, bool internal, int64_t rf,
                 int64_t partitions) {
  const auto& b = c.call.base_uri;
  const auto& id = c.cluster_id;
  begin_resource(w, "KafkaTopic", v3_url(b, {"clusters", id, "topics", name}),
                 v3_crn({{"kafka", id}, {"topic", name}}));
  w.field("cluster_id", id).field("topic_name", name).field("is_internal", internal);
  w.field("replication_factor", rf).field("partitions_count", partitions);
  related(w, "partitions", v3_url(b, {"clusters", id, "topics", name, "partitions"}));
  related(w, "configs", v3_url(b, {"clusters", id, "topics", name, "configs"}));
  related(w, "partition_reassignments", v3_url(b, {"clusters", id, "topics", name, "partitions", "-", "reassignment"}));
  w.key("authorized_operations").begin_array().end_array().end_object();
}

void write_topic(JsonWriter& w, const V3Call& c, const Topic& t) {
  const int64_t rf = t.partitions.empty() ? 0 : static_cast<int64_t>(t.partitions.front().replica_nodes.size());
  write_topic(w, c, *t.name, t.is_internal, rf, static_cast<int64_t>(t.partitions.size()));
}

std::optional<network::HttpResponse> list_topics(V3Call& c) {
  JsonWriter w;
  begin_collection(w, "KafkaTopicList", v3_url(c.call.base_uri, {"clusters", c.cluster_id, "topics"}));
  for (const auto& t : topics_metadata(c.kafka, std::nullopt)) write_topic(w, c, t);
  end_collection(w);
  return json_response(w.take());
}

std::optional<network::HttpResponse> get_topic(V3Call& c) {
  JsonWriter w;
  write_topic(w, c, topics_metadata(c.kafka, c.params[1]).front());
  return json_response(w.take());
}

int64_t int_field(const JsonValue& body, const char* name, int64_t def) {
  const JsonValue* v = body.find(name);
  if (!v || v->kind == JsonValue::Kind::kNull) return def;
  if (v->kind != JsonValue::Kind::kNumber || v->number != static_cast<double>(static_cast<int64_t>(v->number)))
    throw RestError(400, 400, std::string("'") + name + "' must be an integer");
  return static_cast<int64_t>(v->number);
}

// [{"name": ..., "value": ...}, ...] as (name, value) pairs; a missing or
// null value is nullopt.
std::vector<std::pair<std::string, std::optional<std::string>>> name_values(const JsonValue* list) {
  std::vector<std::pair<std::string, std::optional<std::string>>> out;
  if (!list || list->kind == JsonValue::Kind::kNull) return out;
  if (list->kind != JsonValue::Kind::kArray) throw RestError(400, 400, "configs must be a list of {name, value}");
  for (const auto& item : list->array) {
    const JsonValue* name = item.find("name");
    const JsonValue* value = item.find("value");
    if (!name || name->kind != JsonValue::Kind::kString) throw RestError(400, 400, "a config needs a 'name'");
    std::optional<std::string> v;
    if (value && value->kind == JsonValue::Kind::kString)
      v = value->string;
    else if (value && value->kind == JsonValue::Kind::kNumber)
      v = value->number_text;
    else if (value && value->kind == JsonValue::Kind::kBool)
      v = value->boolean ? "true" : "false";
    out.emplace_back(name->string, std::move(v));
  }
  return out;
}

std::optional<network::HttpResponse> create_topic(V3Call& c) {
  const auto body = json_body(c.call.request.body);
  const JsonValue* name = body.find("topic_name");
  if (!name || name->kind != JsonValue::Kind::kString || name->string.empty())
    throw RestError(400, 400, "topic_name is required");
  protocol::CreateTopicsRequest req;
  auto& t = req.topics.emplace_back();
  t.name = name->string;
  t.num_partitions = static_cast<int32_t>(int_field(body, "partitions_count", -1));
  t.replication_factor = static_cast<int16_t>(int_field(body, "replication_factor", -1));
  for (auto& [key, value] : name_values(body.find("configs"))) {
    auto& cfg = t.configs.emplace_back();
    cfg.name = key;
    cfg.value = value;
  }
  const JsonValue* validate = body.find("validate_only");
  req.validate_only = validate && validate->kind == JsonValue::Kind::kBool && validate->boolean;
  req.timeout_ms = 30000;
  auto resp = c.kafka.call<protocol::CreateTopicsResponse>(req, 7);
  int64_t partitions = t.num_partitions, rf = t.replication_factor;
  for (const auto& r : resp.topics) {
    throw_kafka_error(r.error_code, r.error_message);
    if (r.num_partitions > 0) partitions = r.num_partitions;
    if (r.replication_factor > 0) rf = r.replication_factor;
  }
  JsonWriter w;
  write_topic(w, c, t.name, false, rf, partitions);
  return json_response(w.take(), 201);
}

std::optional<network::HttpResponse> delete_topic(V3Call& c) {
  protocol::DeleteTopicsRequest req;
  req.topics.emplace_back().name = c.params[1];
  req.timeout_ms = 30000;
  auto resp = c.kafka.call<protocol::DeleteTopicsResponse>(req, 6);
  for (const auto& r : resp.responses) throw_kafka_error(r.error_code, r.error_message);
  return no_content();
}

void write_partition(JsonWriter& w, const V3Call& c, const std::string& topic, const Partition& p) {
  const auto& b = c.call.base_uri;
  const auto& id = c.cluster_id;
  const auto pid = std::to_string(p.partition_index);
  begin_resource(w, "KafkaPartition", v3_url(b, {"clusters", id, "topics", topic, "partitions", pid}),
                 v3_crn({{"kafka", id}, {"topic", topic}, {"partition", pid}}));
  w.field("cluster_id", id).field("topic_name", topic).field("partition_id", p.partition_index);
  related(w, "replicas", v3_url(b, {"clusters", id, "topics", topic, "partitions", pid, "replicas"}));
  if (p.leader_id >= 0)
    related(w, "leader",
            v3_url(b, {"clusters", id, "topics", topic, "partitions", pid, "replicas", std::to_string(p.leader_id)}));
  related(w, "reassignment", v3_url(b, {"clusters", id, "topics", topic, "partitions", pid, "reassignment"}));
  w.end_object();
}

std::optional<network::HttpResponse> list_partitions(V3Call& c) {
  const auto& topic = c.params[1];
  const auto t = topics_metadata(c.kafka, topic).front();
  JsonWriter w;
  begin_collection(w, "KafkaPartitionList",
                   v3_url(c.call.base_uri, {"clusters", c.cluster_id, "topics", topic, "partitions"}));
  for (const auto& p : t.partitions) write_partition(w, c, topic, p);
  end_collection(w);
  return json_response(w.take());
}

std::optional<network::HttpResponse> get_partition(V3Call& c) {
  const auto& topic = c.params[1];
  const auto t = topics_metadata(c.kafka, topic).front();
  for (const auto& p : t.partitions)
    if (std::to_string(p.partition_index) == c.params[2]) {
      JsonWriter w;
      write_partition(w, c, topic, p);
      return json_response(w.take());
    }
  throw RestError(404, 40402, "This server does not host this topic-partition.");
}

void write_topic_config(JsonWriter& w, const V3Call& c, const std::string& topic,
                        const protocol::DescribeConfigsResponse::DescribeConfigsResourceResult& cfg) {
  const auto& id = c.cluster_id;
  begin_resource(w, "KafkaTopicConfig", v3_url(c.call.base_uri, {"clusters", id, "topics", topic, "configs", cfg.name}),
                 v3_crn({{"kafka", id}, {"topic", topic}, {"config", cfg.name}}));
  w.field("cluster_id", id).field("topic_name", topic);
  write_config_fields(w, cfg);
  w.end_object();
}

std::optional<network::HttpResponse> list_topic_configs(V3Call& c) {
  const auto& topic = c.params[1];
  auto configs = describe_configs(c.kafka, kTopicResourceType, topic, std::nullopt);
  JsonWriter w;
  begin_collection(w, "KafkaTopicConfigList",
                   v3_url(c.call.base_uri, {"clusters", c.cluster_id, "topics", topic, "configs"}));
  for (const auto& cfg : configs) write_topic_config(w, c, topic, cfg);
  end_collection(w);
  return json_response(w.take());
}

std::optional<network::HttpResponse> get_topic_config(V3Call& c) {
  const auto& topic = c.params[1];
  for (const auto& cfg : describe_configs(c.kafka, kTopicResourceType, topic, c.params[2]))
    if (cfg.name == c.params[2]) {
      JsonWriter w;
      write_topic_config(w, c, topic, cfg);
      return json_response(w.take());
    }
  throw RestError(404, 404, "Config " + c.params[2] + " cannot be found for topic " + topic + ".");
}

std::optional<network::HttpResponse> update_topic_config(V3Call& c) {
  const auto body = json_body(c.call.request.body);
  const JsonValue* value = body.find("value");
  std::optional<std::string> v;
  if (value && value->kind == JsonValue::Kind::kString)
    v = value->string;
  else if (value && value->kind == JsonValue::Kind::kNumber)
    v = value->number_text;
  else if (value && value->kind == JsonValue::Kind::kBool)
    v = value->boolean ? "true" : "false";
  if (!v) throw RestError(400, 400, "value is required");
  alter_configs(c.kafka, kTopicResourceType, c.params[1], {{c.params[2], v}}, false);
  return no_content();
}

std::optional<network::HttpResponse> reset_topic_config(V3Call& c) {
  alter_configs(c.kafka, kTopicResourceType, c.params[1], {{c.params[2], std::nullopt}}, false);
  return no_content();
}

// {"data": [{"name", "value", "operation": "SET"|"DELETE"}], "validate_only"}
std::optional<network::HttpResponse> alter_topic_configs(V3Call& c) {
  const auto body = json_body(c.call.request.body);
  const JsonValue* data = body.find("data");
  if (!data || data->kind != JsonValue::Kind::kArray) throw RestError(400, 400, "data must be a list");
  auto changes = name_values(data);
  for (size_t i = 0; i < data->array.size(); ++i) {
    const JsonValue* op = data->array[i].find("operation");
    std::string operation = op && op->kind == JsonValue::Kind::kString ? op->string : "SET";
    std::transform(operation.begin(), operation.end(), operation.begin(), ::toupper);
    if (operation == "DELETE")
      changes[i].second = std::nullopt;
    else if (operation != "SET")
      throw RestError(400, 400, "operation must be SET or DELETE");
    else if (!changes[i].second)
      throw RestError(400, 400, "SET needs a value for " + changes[i].first);
  }
  const JsonValue* validate = body.find("validate_only");
  alter_configs(c.kafka, kTopicResourceType, c.params[1], changes,
                validate && validate->kind == JsonValue::Kind::kBool && validate->boolean);
  return no_content();
}

}  // namespace

void add_topic_routes(std::vector<V3Api::Route>& r) {
  using P = std::vector<std::string>;
  const P topics{"v3", "clusters", "{}", "topics"};
  auto under = [&](std::initializer_list<std::string> more) {
    P p = topics;
    p.insert(p.end(), more);
    return p;
  };
  r.push_back({"GET", topics, "v3.topics.list", list_topics});
  r.push_back({"POST", topics, "v3.topics.create", create_topic});
  r.push_back({"GET", under({"{}"}), "v3.topics.get", get_topic});
  r.push_back({"DELETE", under({"{}"}), "v3.topics.delete", delete_topic});
  r.push_back({"GET", under({"{}", "partitions"}), "v3.partitions.list", list_partitions});
  r.push_back({"GET", under({"{}", "partitions", "{}"}), "v3.partitions.get", get_partition});
  r.push_back({"GET", under({"{}", "configs"}), "v3.topic-configs.list", list_topic_configs});
  r.push_back({"POST", under({"{}", "configs:alter"}), "v3.topic-configs.alter", alter_topic_configs});
  r.push_back({"GET", under({"{}", "configs", "{}"}), "v3.topic-configs.get", get_topic_config});
  r.push_back({"PUT", under({"{}", "configs", "{}"}), "v3.topic-configs.update", update_topic_config});
  r.push_back({"DELETE", under({"{}", "configs", "{}"}), "v3.topic-configs.delete", reset_topic_config});
}

}  // namespace skiff::restproxy
