// ConsumerGroupDescribe (key 69), v0-1: KIP-848's description of consumer
// protocol groups: state, group and assignment epochs, the assignor, and
// every member with its epoch, subscription, current and target assignment.
// A missing group, or one of the classic type, answers GROUP_ID_NOT_FOUND
// with Kafka's message.
//
// Threads: any handler thread.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/consumer_group_describe_request.h"
#include "protocol/generated/consumer_group_describe_response.h"

namespace skiff::api {

class ConsumerGroupDescribeHandler
    : public TypedApiHandler<protocol::ConsumerGroupDescribeRequest, protocol::ConsumerGroupDescribeResponse> {
 public:
  explicit ConsumerGroupDescribeHandler(BrokerServices& services)
      : TypedApiHandler(protocol::ConsumerGroupDescribeRequest::kApiKey, 0, 1), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::ConsumerGroupDescribeRequest& body, Responder& out) override;
  protocol::ConsumerGroupDescribeResponse error_response(const protocol::ConsumerGroupDescribeRequest& body,
                                                         ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
