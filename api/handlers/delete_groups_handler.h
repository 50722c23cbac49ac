// DeleteGroups (key 42), v0-3: deletes empty groups with their offsets.
// v3 adds a per-group ErrorMessage; Kafka 4.4 fills it only for streams
// groups' topology checks and for a coordinator whose whole write failed by
// an exception, neither of which Skiff has: it stays null, as Kafka's answer
// for classic groups (GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP, ...) is.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/delete_groups_request.h"
#include "protocol/generated/delete_groups_response.h"

namespace skiff::api {

class DeleteGroupsHandler : public TypedApiHandler<protocol::DeleteGroupsRequest, protocol::DeleteGroupsResponse> {
 public:
  explicit DeleteGroupsHandler(BrokerServices& services)
      : TypedApiHandler(protocol::DeleteGroupsRequest::kApiKey, 0, 3), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::DeleteGroupsRequest& body, Responder& out) override;
  protocol::DeleteGroupsResponse error_response(const protocol::DeleteGroupsRequest& body, ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
