// GET /topics, /topics/{t}, /topics/{t}/partitions, /topics/{t}/partitions/{p}
// and /brokers: Confluent's v2 bodies (TopicsResource, PartitionsResource,
// BrokersResource) from Metadata and DescribeConfigs.
#include "apps/rest_proxy/rest_errors.h"
#include "apps/rest_proxy/v2_handlers.h"
#include "apps/rest_proxy/v2_kafka.h"
#include "common/json_writer.h"

namespace skiff::restproxy {
namespace {

void write_partition(JsonWriter& w, const PartitionMeta& p) {
  w.begin_object().field("partition", p.partition).field("leader", p.leader).key("replicas").begin_array();
  for (int32_t r : p.replicas) {
    const bool in_sync = std::find(p.isr.begin(), p.isr.end(), r) != p.isr.end();
    w.begin_object().field("broker", r).field("leader", r == p.leader).field("in_sync", in_sync).end_object();
  }
  w.end_array().end_object();
}

TopicMeta topic_meta(client::InProcessClient& kafka, const std::string& topic) {
  const std::vector<std::string> only{topic};
  auto meta = metadata(kafka, &only);
  auto it = meta.topics.find(topic);
  if (it == meta.topics.end()) throw RestError(404, 40401, "Topic not found.");
  return it->second;
}

const PartitionMeta& partition_meta(const TopicMeta& t, int32_t partition) {
  for (const auto& p : t.partitions) {
    if (p.partition == partition) return p;
  }
  throw RestError(404, 40402, "Partition not found.");
}

network::HttpResponse topic_body(client::InProcessClient& kafka, const std::string& topic) {
  const TopicMeta t = topic_meta(kafka, topic);
  JsonWriter w;
  w.begin_object().field("name", t.name).key("configs").begin_object();
  for (const auto& [name, value] : topic_configs(kafka, topic)) w.field(name, value);
  w.end_object().key("partitions").begin_array();
  for (const auto& p : t.partitions) write_partition(w, p);
  w.end_array().end_object();
  return v2_json(w.take());
}

}  // namespace

std::optional<network::HttpResponse> metadata_v2(V2Services& s, const RestCall& call) {
  const auto& path = call.path;
  if (path.size() > 4 || (path.size() >= 3 && path[2] != "partitions") || (path[0] == "brokers" && path.size() != 1))
    return std::nullopt;
  if (call.request.method != "GET") throw RestError(405, 405, "HTTP 405 Method Not Allowed");
  auto kafka = s.kafka.client(call.principal);
  JsonWriter w;
  if (path[0] == "brokers") {
    w.begin_object().key("brokers").begin_array();
    for (int32_t b : metadata(kafka, nullptr).brokers) w.value(b);
    w.end_array().end_object();
    return v2_json(w.take());
  }
  if (path.size() == 1) {
    w.begin_array();
    for (const auto& [name, t] : metadata(kafka, nullptr).topics) w.value(name);
    w.end_array();
    return v2_json(w.take());
  }
  if (path.size() == 2) return topic_body(kafka, path[1]);
  const TopicMeta t = topic_meta(kafka, path[1]);
  if (path.size() == 4) {
    write_partition(w, partition_meta(t, v2_partition_segment(path[3])));
    return v2_json(w.take());
  }
  w.begin_array();
  for (const auto& p : t.partitions) write_partition(w, p);
  w.end_array();
  return v2_json(w.take());
}

}  // namespace skiff::restproxy
