// DescribeTopicPartitions (key 75), v0: topics by name (all when none are
// named) with their partitions, paginated by response_partition_limit and
// the cursor, as the Java admin's describeTopics expects.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/describe_topic_partitions_request.h"
#include "protocol/generated/describe_topic_partitions_response.h"

namespace skiff::api {

class DescribeTopicPartitionsHandler
    : public TypedApiHandler<protocol::DescribeTopicPartitionsRequest, protocol::DescribeTopicPartitionsResponse> {
 public:
  explicit DescribeTopicPartitionsHandler(BrokerServices& services)
      : TypedApiHandler(protocol::DescribeTopicPartitionsRequest::kApiKey, 0, 0), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::DescribeTopicPartitionsRequest& body, Responder& out) override;
  protocol::DescribeTopicPartitionsResponse error_response(const protocol::DescribeTopicPartitionsRequest& body,
                                                           ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
