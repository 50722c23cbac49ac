// V2Api: what the broker keeps for the REST proxy's v2 API: the consumer
// instances (with their timer thread) and the services dispatch_v2 uses.
// server/ makes it after the RestProxyApp (whose RestKafka it shares: the
// app's InProcessSender outlives every request), hands the app a V2Routes
// that calls dispatch(), and destroys it after the app stopped and before
// KafkaApis goes (closing the instances commits and leaves their groups
// through Kafka).
// Threads: dispatch() on the app's workers; construction and destruction on
// the controlling thread.
#pragma once

#include <memory>
#include <optional>

#include "apps/rest_proxy/consumer_instances.h"
#include "apps/rest_proxy/v2_routes.h"

namespace skiff::restproxy {

class V2Api {
 public:
  V2Api(const RestKafka& kafka, std::shared_ptr<EmbeddedFormats> formats, const RestLimits& limits)
      : consumers_(kafka, formats, limits), services_{kafka, consumers_, std::move(formats)} {
    consumers_.start();
  }

  std::optional<network::HttpResponse> dispatch(const RestCall& call) { return dispatch_v2(services_, call); }

 private:
  ConsumerInstances consumers_;
  V2Services services_;
};

}  // namespace skiff::restproxy
