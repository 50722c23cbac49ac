// ApiVersions (key 18), v0-5: the APIs and version ranges this broker serves
// (on a KRaft controller listener, those a controller serves:
// api/controller_listener.h), read from the HandlerRegistry so the answer always matches dispatch, and
// (v3+) the features of api/features.h. Their epoch is the time this handler
// was built: levels change only with a new binary, hence across a restart,
// and a client (the Java client keeps the highest epoch it has seen) then
// takes the new levels.
// v5 (KIP-1242): a client names the cluster and node it expects, both or
// neither (else INVALID_REQUEST); when they are not this broker's, the answer
// is REBOOTSTRAP_REQUIRED with no APIs, as Kafka 4.4's KafkaApis.
// A version above ours gets a v0 body with UNSUPPORTED_VERSION and our own
// ApiVersions range (KIP-511), so the client can retry at a version we know.
#pragma once

#include "api/api_handler.h"
#include "api/broker_info.h"
#include "api/client_software.h"
#include "api/feature_levels.h"
#include "api/handler_registry.h"
#include "protocol/generated/api_versions_request.h"
#include "protocol/generated/api_versions_response.h"

namespace skiff::api {

class ApiVersionsHandler : public TypedApiHandler<protocol::ApiVersionsRequest, protocol::ApiVersionsResponse> {
 public:
  ApiVersionsHandler(const HandlerRegistry& registry, const BrokerInfo& broker, const FeatureLevels& features);

  // For a request at a version above max: answered in version 0.
  void answer_unsupported_version(const ApiRequest& request, Responder& out) const;
  // Where v3+'s client software name and version are recorded (/metrics).
  // Set before requests flow; null: not recorded.
  void set_client_software(ClientSoftware* software) { software_ = software; }

 protected:
  void handle(ApiRequest& request, protocol::ApiVersionsRequest& body, Responder& out) override;
  protocol::ApiVersionsResponse error_response(const protocol::ApiVersionsRequest& body, ErrorCode error) override;

 private:
  const HandlerRegistry& registry_;
  const BrokerInfo& broker_;
  const FeatureLevels& features_;
  ClientSoftware* software_ = nullptr;
};

}  // namespace skiff::api
