// IncrementalAlterConfigs (key 44), v0-1: SET / DELETE / APPEND / SUBTRACT
// on a topic's overrides (validated, persisted, applied live). Broker configs
// as in AlterConfigs: INVALID_CONFIG.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/incremental_alter_configs_request.h"
#include "protocol/generated/incremental_alter_configs_response.h"

namespace skiff::api {

class IncrementalAlterConfigsHandler
    : public TypedApiHandler<protocol::IncrementalAlterConfigsRequest, protocol::IncrementalAlterConfigsResponse> {
 public:
  explicit IncrementalAlterConfigsHandler(BrokerServices& services)
      : TypedApiHandler(protocol::IncrementalAlterConfigsRequest::kApiKey, 0, 1), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::IncrementalAlterConfigsRequest& body, Responder& out) override;
  protocol::IncrementalAlterConfigsResponse error_response(const protocol::IncrementalAlterConfigsRequest& body,
                                                           ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
