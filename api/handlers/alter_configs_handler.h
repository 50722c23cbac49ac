// AlterConfigs (key 33), v0-2: replaces a topic's overrides (validated,
// persisted, applied live to its partitions). Broker configs are static in
// Skiff: they get INVALID_CONFIG with a message saying where to set them.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/alter_configs_request.h"
#include "protocol/generated/alter_configs_response.h"

namespace skiff::api {

class AlterConfigsHandler : public TypedApiHandler<protocol::AlterConfigsRequest, protocol::AlterConfigsResponse> {
 public:
  explicit AlterConfigsHandler(BrokerServices& services)
      : TypedApiHandler(protocol::AlterConfigsRequest::kApiKey, 0, 2), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::AlterConfigsRequest& body, Responder& out) override;
  protocol::AlterConfigsResponse error_response(const protocol::AlterConfigsRequest& body, ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
