// SyncGroup (key 14), v0-5: the leader sends the assignment, every member
// receives its own; followers wait (in the coordinator) for the leader.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/sync_group_request.h"
#include "protocol/generated/sync_group_response.h"

namespace skiff::api {

class SyncGroupHandler : public TypedApiHandler<protocol::SyncGroupRequest, protocol::SyncGroupResponse> {
 public:
  explicit SyncGroupHandler(BrokerServices& services)
      : TypedApiHandler(protocol::SyncGroupRequest::kApiKey, 0, 5), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::SyncGroupRequest& body, Responder& out) override;
  protocol::SyncGroupResponse error_response(const protocol::SyncGroupRequest& body, ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
