// ListGroups (key 16), v0-5: every group, filtered by state (v4+) and by
// type (v5+: "classic" or "consumer", KIP-848).
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/list_groups_request.h"
#include "protocol/generated/list_groups_response.h"

namespace skiff::api {

class ListGroupsHandler : public TypedApiHandler<protocol::ListGroupsRequest, protocol::ListGroupsResponse> {
 public:
  explicit ListGroupsHandler(BrokerServices& services)
      : TypedApiHandler(protocol::ListGroupsRequest::kApiKey, 0, 5), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::ListGroupsRequest& body, Responder& out) override;
  protocol::ListGroupsResponse error_response(const protocol::ListGroupsRequest& body, ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
