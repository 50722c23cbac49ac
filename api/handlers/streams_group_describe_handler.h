// StreamsGroupDescribe (key 89), v0-1: KIP-1071's description of streams
// groups: state, epochs, the topology (subtopologies and their topics), and
// every member with its process, endpoint, tasks and target assignment; v1+
// with IncludeTopologyDescription the KIP-1331 description kept from API 93.
// The group is the coordinator's (describe_streams_group); this handler does
// what Kafka 4.4's KafkaApis.handleStreamsGroupDescribe does around it:
// DESCRIBE on each group (GROUP_AUTHORIZATION_FAILED), an empty group id is
// INVALID_GROUP_ID (GroupCoordinatorService), the authorized operations on
// request, and, with an authorizer, a group whose topology names a topic the
// principal may not DESCRIBE answers TOPIC_AUTHORIZATION_FAILED with Kafka's
// message and nothing else.
// Served at streams.version 1+ (KafkaApis' feature gate).
//
// Threads: any handler thread.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/streams_group_describe_request.h"
#include "protocol/generated/streams_group_describe_response.h"

namespace skiff::api {

class StreamsGroupDescribeHandler
    : public TypedApiHandler<protocol::StreamsGroupDescribeRequest, protocol::StreamsGroupDescribeResponse> {
 public:
  explicit StreamsGroupDescribeHandler(BrokerServices& services)
      : TypedApiHandler(protocol::StreamsGroupDescribeRequest::kApiKey, 0, 1), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::StreamsGroupDescribeRequest& body, Responder& out) override;
  protocol::StreamsGroupDescribeResponse error_response(const protocol::StreamsGroupDescribeRequest& body,
                                                        ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
