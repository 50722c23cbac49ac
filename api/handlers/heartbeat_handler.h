// Heartbeat (key 12), v0-4: keeps a member's session alive and tells it
// when the group is rebalancing (REBALANCE_IN_PROGRESS).
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/heartbeat_request.h"
#include "protocol/generated/heartbeat_response.h"

namespace skiff::api {

class HeartbeatHandler : public TypedApiHandler<protocol::HeartbeatRequest, protocol::HeartbeatResponse> {
 public:
  explicit HeartbeatHandler(BrokerServices& services)
      : TypedApiHandler(protocol::HeartbeatRequest::kApiKey, 0, 4), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::HeartbeatRequest& body, Responder& out) override;
  protocol::HeartbeatResponse error_response(const protocol::HeartbeatRequest& body, ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
