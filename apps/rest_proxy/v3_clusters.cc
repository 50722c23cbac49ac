// v3 clusters, brokers and broker configs (kafka-rest's ClustersResource,
// BrokersResource, BrokerConfigsResource, ClusterConfigsResource).
#include "apps/rest_proxy/rest_errors.h"
#include "apps/rest_proxy/v3_api.h"
#include "apps/rest_proxy/v3_configs.h"
#include "apps/rest_proxy/v3_json.h"
#include "protocol/generated/metadata_request.h"
#include "protocol/generated/metadata_response.h"

namespace skiff::restproxy {
namespace {

void write_cluster(JsonWriter& w, const V3Call& c) {
  const auto& base = c.call.base_uri;
  const auto& id = c.cluster_id;
  begin_resource(w, "KafkaCluster", v3_url(base, {"clusters", id}), v3_crn({{"kafka", id}}));
  w.field("cluster_id", id);
  related(w, "acls", v3_url(base, {"clusters", id, "acls"}));
  related(w, "brokers", v3_url(base, {"clusters", id, "brokers"}));
  related(w, "broker_configs", v3_url(base, {"clusters", id, "broker-configs"}));
  related(w, "consumer_groups", v3_url(base, {"clusters", id, "consumer-groups"}));
  related(w, "topics", v3_url(base, {"clusters", id, "topics"}));
  related(w, "partition_reassignments",
          v3_url(base, {"clusters", id, "topics", "-", "partitions", "-", "reassignment"}));
  w.end_object();
}

std::optional<network::HttpResponse> list_clusters(V3Call& c) {
  JsonWriter w;
  begin_collection(w, "KafkaClusterList", v3_url(c.call.base_uri, {"clusters"}));
  write_cluster(w, c);
  end_collection(w);
  return json_response(w.take());
}

std::optional<network::HttpResponse> get_cluster(V3Call& c) {
  JsonWriter w;
  write_cluster(w, c);
  return json_response(w.take());
}

using Broker = protocol::MetadataResponse::MetadataResponseBroker;

std::vector<Broker> brokers(client::InProcessClient& kafka) {
  protocol::MetadataRequest req;
  req.topics = std::vector<protocol::MetadataRequest::MetadataRequestTopic>{};
  return kafka.call<protocol::MetadataResponse>(req, 12).brokers;
}

Broker find_broker(client::InProcessClient& kafka, const std::string& id) {
  for (auto& b : brokers(kafka))
    if (std::to_string(b.node_id) == id) return b;
  throw RestError(404, 404, "Broker " + id + " could not be found.");
}

void write_broker(JsonWriter& w, const V3Call& c, const Broker& b) {
  const auto& base = c.call.base_uri;
  const auto& id = c.cluster_id;
  const auto bid = std::to_string(b.node_id);
  begin_resource(w, "KafkaBroker", v3_url(base, {"clusters", id, "brokers", bid}),
                 v3_crn({{"kafka", id}, {"broker", bid}}));
  w.field("cluster_id", id).field("broker_id", b.node_id).field("host", b.host).field("port", b.port);
  w.field("rack", b.rack);
  related(w, "configs", v3_url(base, {"clusters", id, "brokers", bid, "configs"}));
  related(w, "partition_replicas", v3_url(base, {"clusters", id, "brokers", bid, "partition-replicas"}));
  w.end_object();
}

std::optional<network::HttpResponse> list_brokers(V3Call& c) {
  JsonWriter w;
  begin_collection(w, "KafkaBrokerList", v3_url(c.call.base_uri, {"clusters", c.cluster_id, "brokers"}));
  for (const auto& b : brokers(c.kafka)) write_broker(w, c, b);
  end_collection(w);
  return json_response(w.take());
}

std::optional<network::HttpResponse> get_broker(V3Call& c) {
  JsonWriter w;
  write_broker(w, c, find_broker(c.kafka, c.params[1]));
  return json_response(w.take());
}

void write_broker_config(JsonWriter& w, const V3Call& c, const std::string& broker,
                         const protocol::DescribeConfigsResponse::DescribeConfigsResourceResult& cfg) {
  const auto& id = c.cluster_id;
  begin_resource(w, "KafkaBrokerConfig",
                 v3_url(c.call.base_uri, {"clusters", id, "brokers", broker, "configs", cfg.name}),
                 v3_crn({{"kafka", id}, {"broker", broker}, {"config", cfg.name}}));
  w.field("cluster_id", id).field("broker_id", static_cast<int64_t>(std::stoll(broker)));
  write_config_fields(w, cfg);
  w.end_object();
}

std::optional<network::HttpResponse> list_broker_configs(V3Call& c) {
  const auto broker = std::to_string(find_broker(c.kafka, c.params[1]).node_id);
  auto configs = describe_configs(c.kafka, kBrokerResourceType, broker, std::nullopt);
  JsonWriter w;
  begin_collection(w, "KafkaBrokerConfigList",
                   v3_url(c.call.base_uri, {"clusters", c.cluster_id, "brokers", broker, "configs"}));
  for (const auto& cfg : configs) write_broker_config(w, c, broker, cfg);
  end_collection(w);
  return json_response(w.take());
}

std::optional<network::HttpResponse> get_broker_config(V3Call& c) {
  const auto broker = std::to_string(find_broker(c.kafka, c.params[1]).node_id);
  for (const auto& cfg : describe_configs(c.kafka, kBrokerResourceType, broker, c.params[2]))
    if (cfg.name == c.params[2]) {
      JsonWriter w;
      write_broker_config(w, c, broker, cfg);
      return json_response(w.take());
    }
  throw RestError(404, 404, "Config " + c.params[2] + " could not be found.");
}

// The cluster-wide dynamic broker defaults (DescribeConfigs of broker "").
std::optional<network::HttpResponse> list_cluster_configs(V3Call& c) {
  const auto& id = c.cluster_id;
  JsonWriter w;
  begin_collection(w, "KafkaClusterConfigList", v3_url(c.call.base_uri, {"clusters", id, "broker-configs"}));
  for (const auto& cfg : describe_configs(c.kafka, kBrokerResourceType, "", std::nullopt)) {
    if (cfg.config_source != 3) continue;  // DYNAMIC_DEFAULT_BROKER_CONFIG only
    begin_resource(w, "KafkaClusterConfig", v3_url(c.call.base_uri, {"clusters", id, "broker-configs", cfg.name}),
                   v3_crn({{"kafka", id}, {"broker-config", cfg.name}}));
    w.field("cluster_id", id).field("config_type", "BROKER");
    write_config_fields(w, cfg);
    w.end_object();
  }
  end_collection(w);
  return json_response(w.take());
}

}  // namespace

void add_cluster_routes(std::vector<V3Api::Route>& r) {
  r.push_back({"GET", {"v3", "clusters"}, "v3.clusters.list", list_clusters});
  r.push_back({"GET", {"v3", "clusters", "{}"}, "v3.clusters.get", get_cluster});
  r.push_back({"GET", {"v3", "clusters", "{}", "brokers"}, "v3.brokers.list", list_brokers});
  r.push_back({"GET", {"v3", "clusters", "{}", "brokers", "{}"}, "v3.brokers.get", get_broker});
  r.push_back(
      {"GET", {"v3", "clusters", "{}", "brokers", "{}", "configs"}, "v3.broker-configs.list", list_broker_configs});
  r.push_back(
      {"GET", {"v3", "clusters", "{}", "brokers", "{}", "configs", "{}"}, "v3.broker-configs.get", get_broker_config});
  r.push_back({"GET", {"v3", "clusters", "{}", "broker-configs"}, "v3.cluster-configs.list", list_cluster_configs});
}

}  // namespace skiff::restproxy
