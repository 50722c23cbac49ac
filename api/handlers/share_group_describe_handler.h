// ShareGroupDescribe (key 77), v1: KIP-932's description of share groups:
// state (Empty / Stable), group and assignment epochs, the assignor
// ("simple") and every member with its epoch, subscription and assignment.
// A missing group, or one of another type, answers GROUP_ID_NOT_FOUND with
// Kafka's message. DESCRIBE on the group (GROUP_AUTHORIZATION_FAILED) and on
// the assigned topics (TOPIC_AUTHORIZATION_FAILED), as ConsumerGroupDescribe.
//
// Not registered in KafkaApis yet; tests call it directly.
//
// Threads: any handler thread.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/share_group_describe_request.h"
#include "protocol/generated/share_group_describe_response.h"

namespace skiff::api {

class ShareGroupDescribeHandler
    : public TypedApiHandler<protocol::ShareGroupDescribeRequest, protocol::ShareGroupDescribeResponse> {
 public:
  explicit ShareGroupDescribeHandler(BrokerServices& services)
      : TypedApiHandler(protocol::ShareGroupDescribeRequest::kApiKey, 1, 1), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::ShareGroupDescribeRequest& body, Responder& out) override;
  protocol::ShareGroupDescribeResponse error_response(const protocol::ShareGroupDescribeRequest& body,
                                                      ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
