// DescribeGroups (key 15), v0-6: state, protocol and members of groups;
// metadata and assignments only when the group is Stable, as Kafka. A group
// that does not exist is Dead; v6 (KIP-1043) adds GROUP_ID_NOT_FOUND and
// "Group <id> not found." to that, as Kafka 4.4.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/describe_groups_request.h"
#include "protocol/generated/describe_groups_response.h"

namespace skiff::api {

class DescribeGroupsHandler
    : public TypedApiHandler<protocol::DescribeGroupsRequest, protocol::DescribeGroupsResponse> {
 public:
  explicit DescribeGroupsHandler(BrokerServices& services)
      : TypedApiHandler(protocol::DescribeGroupsRequest::kApiKey, 0, 6), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::DescribeGroupsRequest& body, Responder& out) override;
  protocol::DescribeGroupsResponse error_response(const protocol::DescribeGroupsRequest& body,
                                                  ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
