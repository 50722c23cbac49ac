// DescribeShareGroupOffsets (key 90), v0-1: each share group's start
// offset per partition (the share coordinator's state summary, through the
// group coordinator's ShareStateInitializer port) and, from v1, its lag
// (partition end offset - start offset - delivered records). Topics null:
// every partition of the group with initialized state. DESCRIBE on the
// group (GROUP_AUTHORIZATION_FAILED for that group) and on each topic
// (TOPIC_AUTHORIZATION_FAILED for its partitions; left out when listing all).
//
// Not registered in KafkaApis yet; tests call it directly.
//
// Threads: any handler thread; answers when the port answered for every group
// (on the port's thread).
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/describe_share_group_offsets_request.h"
#include "protocol/generated/describe_share_group_offsets_response.h"

namespace skiff::api {

class DescribeShareGroupOffsetsHandler
    : public TypedApiHandler<protocol::DescribeShareGroupOffsetsRequest, protocol::DescribeShareGroupOffsetsResponse> {
 public:
  explicit DescribeShareGroupOffsetsHandler(BrokerServices& services)
      : TypedApiHandler(protocol::DescribeShareGroupOffsetsRequest::kApiKey, 0, 1), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::DescribeShareGroupOffsetsRequest& body, Responder& out) override;
  protocol::DescribeShareGroupOffsetsResponse error_response(const protocol::DescribeShareGroupOffsetsRequest& body,
                                                             ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
