// V3Api: Confluent REST Proxy's API v3 (kafka-rest's resources/v3 and
// entities/v3): its routes by method and path pattern, answered with its
// JSON shapes: every resource has "kind" and "metadata" ({"self": URL,
// "resource_name": CRN}), links to related resources ({"related": URL}),
// collections are {"kind", "metadata": {"self", "next": null}, "data": [...]}.
// URLs start with the base URL the client used (RestCall::base_uri).
// Every call is ordinary Kafka requests through RestKafka (ACLs, quotas);
// Kafka errors become Confluent's statuses and codes (v3_kafka.h).
//
// Routes (under /v3/clusters/{cluster_id}; the cluster id is the broker's):
//   GET    /v3/clusters, /v3/clusters/{c}
//   GET    brokers, brokers/{b}, brokers/{b}/configs, brokers/{b}/configs/{name}
//   GET    broker-configs (the dynamic cluster-wide defaults)
//   GET    topics, topics/{t};  POST topics;  DELETE topics/{t}
//   GET    topics/{t}/partitions, topics/{t}/partitions/{p}
//   GET    topics/{t}/configs, topics/{t}/configs/{name}
//   PUT    topics/{t}/configs/{name};  DELETE topics/{t}/configs/{name}
//   POST   topics/{t}/configs:alter
//   GET    consumer-groups, consumer-groups/{g}, consumer-groups/{g}/consumers,
//          consumer-groups/{g}/consumers/{m}, consumer-groups/{g}/lag-summary,
//          consumer-groups/{g}/lags, consumer-groups/{g}/lags/{t}/partitions/{p}
//   POST   topics/{t}/records (streamed: v3_records.h)
// Threads: any (a worker of the app); the object is read-only after construction.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "apps/rest_proxy/embedded_formats.h"
#include "apps/rest_proxy/rest_call.h"
#include "apps/rest_proxy/rest_kafka.h"
#include "network/http_exchange.h"
#include "network/http_message.h"

namespace skiff::restproxy {

// What a v3 route is handed.
struct V3Call {
  const RestCall& call;
  client::InProcessClient& kafka;          // one for the call (its answers live as long as it)
  const RestKafka& rest_kafka;             // for more clients (a long stream makes one per group)
  network::HttpExchange& exchange;         // the streamed produce answers through it
  const std::vector<std::string>& params;  // the pattern's {} segments, in order
  const std::string& cluster_id;
  EmbeddedFormats* formats;  // null: none
};

class V3Api {
 public:
  V3Api(const RestKafka& kafka, std::string cluster_id, std::shared_ptr<EmbeddedFormats> formats,
        const RestLimits& limits);

  // The answer, or nullopt when the route answered through `exchange`.
  // `endpoint` is set to the route's name ("v3.topics.list") for metrics.
  // Throws RestError (404 for an unknown path, 405 for a known path with
  // another method).
  std::optional<network::HttpResponse> route(const RestCall& call, network::HttpExchange& exchange,
                                             std::string& endpoint);

  using Handler = std::function<std::optional<network::HttpResponse>(V3Call&)>;
  struct Route {
    std::string method;
    std::vector<std::string> pattern;  // "{}" matches any one segment
    std::string name;
    Handler handler;
  };

 private:
  const RestKafka& kafka_;
  std::string cluster_id_;
  std::shared_ptr<EmbeddedFormats> formats_;
  std::vector<Route> routes_;
};

// The route tables of each part (v3_clusters.cc, v3_topics.cc, v3_groups.cc, v3_records.cc).
void add_cluster_routes(std::vector<V3Api::Route>& routes);
void add_topic_routes(std::vector<V3Api::Route>& routes);
void add_group_routes(std::vector<V3Api::Route>& routes);
void add_record_routes(std::vector<V3Api::Route>& routes);

}  // namespace skiff::restproxy
