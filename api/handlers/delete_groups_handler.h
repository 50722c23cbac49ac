// DeleteGroups (key 42), v0-2: deletes empty groups with their offsets.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "api/protocol/generated/delete_groups_request.h"
#include "api/protocol/generated/delete_groups_response.h"

namespace skiff::api {

class DeleteGroupsHandler : public TypedApiHandler<protocol::DeleteGroupsRequest, protocol::DeleteGroupsResponse> {
 public:
  explicit DeleteGroupsHandler(BrokerServices& services)
      : TypedApiHandler(protocol::DeleteGroupsRequest::kApiKey, 0, 2), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::DeleteGroupsRequest& body, Responder& out) override;
  protocol::DeleteGroupsResponse error_response(const protocol::DeleteGroupsRequest& body, ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
