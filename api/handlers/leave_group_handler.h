// LeaveGroup (key 13), v0-5: one member (v0-2) or several (v3+, by member
// id or group.instance.id) leave; the group rebalances without them.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/leave_group_request.h"
#include "protocol/generated/leave_group_response.h"

namespace skiff::api {

class LeaveGroupHandler : public TypedApiHandler<protocol::LeaveGroupRequest, protocol::LeaveGroupResponse> {
 public:
  explicit LeaveGroupHandler(BrokerServices& services)
      : TypedApiHandler(protocol::LeaveGroupRequest::kApiKey, 0, 5), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::LeaveGroupRequest& body, Responder& out) override;
  protocol::LeaveGroupResponse error_response(const protocol::LeaveGroupRequest& body, ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
