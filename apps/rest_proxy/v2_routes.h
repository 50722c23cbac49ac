// The REST proxy's v2 API (Confluent REST Proxy API v2): produce to a topic
// or partition in the embedded formats, topics/partitions/brokers metadata,
// and consumer instances. The app (resthttp's RestProxyApp) calls
// dispatch_v2 for every path that is not /v3's, on a worker thread.
//   GET  /topics, /topics/{t}, /topics/{t}/partitions, /topics/{t}/partitions/{p}, /brokers
//   POST /topics/{t}, /topics/{t}/partitions/{p}                  produce
//   POST /consumers/{g}                                           create an instance
//   DELETE /consumers/{g}/instances/{i}
//   POST|GET|DELETE .../subscription, POST|GET .../assignments,
//   POST .../positions[/beginning|/end], GET .../records, POST|GET .../offsets
// Errors: Confluent's v2 bodies ({"error_code", "message"}) in
// application/vnd.kafka.v2+json, answered here (a RestError thrown by a
// route, a Kafka call that failed); anything else the app answers 500.
// Threads: any worker thread; a consumer's GET /records may block up to its
// timeout (bounded by RestLimits), JoinGroup up to the rebalance timeout.
#pragma once

#include <memory>
#include <optional>

#include "apps/rest_proxy/consumer_instances.h"
#include "apps/rest_proxy/embedded_formats.h"
#include "apps/rest_proxy/rest_call.h"
#include "apps/rest_proxy/rest_kafka.h"
#include "network/http_message.h"

namespace skiff::restproxy {

struct V2Services {
  RestKafka kafka;
  ConsumerInstances& consumers;
  std::shared_ptr<EmbeddedFormats> formats;  // null: no registry (the schema formats answer 42207)
};

// nullopt: not a v2 route (the app answers 404).
std::optional<network::HttpResponse> dispatch_v2(V2Services& services, const RestCall& call);

}  // namespace skiff::restproxy
