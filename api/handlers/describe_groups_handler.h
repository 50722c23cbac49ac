// DescribeGroups (key 15), v0-5: state, protocol and members of groups;
// metadata and assignments only when the group is Stable, as Kafka.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "api/protocol/generated/describe_groups_request.h"
#include "api/protocol/generated/describe_groups_response.h"

namespace skiff::api {

class DescribeGroupsHandler
    : public TypedApiHandler<protocol::DescribeGroupsRequest, protocol::DescribeGroupsResponse> {
 public:
  explicit DescribeGroupsHandler(BrokerServices& services)
      : TypedApiHandler(protocol::DescribeGroupsRequest::kApiKey, 0, 5), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::DescribeGroupsRequest& body, Responder& out) override;
  protocol::DescribeGroupsResponse error_response(const protocol::DescribeGroupsRequest& body,
                                                  ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
