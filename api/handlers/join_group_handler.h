// JoinGroup (key 11), v0-9: joins a consumer group (GroupCoordinator). The
// response usually comes later, when the rebalance completes: the request
// waits in the coordinator, not on a handler thread. From v4 a first join
// without a member id gets MEMBER_ID_REQUIRED and an id (KIP-394); v5 adds
// group.instance.id (static membership, KIP-345).
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/join_group_request.h"
#include "protocol/generated/join_group_response.h"

namespace skiff::api {

class JoinGroupHandler : public TypedApiHandler<protocol::JoinGroupRequest, protocol::JoinGroupResponse> {
 public:
  explicit JoinGroupHandler(BrokerServices& services)
      : TypedApiHandler(protocol::JoinGroupRequest::kApiKey, 0, 9), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::JoinGroupRequest& body, Responder& out) override;
  protocol::JoinGroupResponse error_response(const protocol::JoinGroupRequest& body, ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
