// DescribeCluster (key 60), v0-2: this one broker, the cluster id, and this
// broker as controller. v2's IncludeFencedBrokers changes nothing: this broker
// is never fenced (IsFenced stays false). Asked for controllers (endpoint
// type 2, `--bootstrap-controller`), it answers MISMATCHED_ENDPOINT_TYPE as a
// Kafka broker does: Skiff has no controller listener.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/describe_cluster_request.h"
#include "protocol/generated/describe_cluster_response.h"

namespace skiff::api {

class DescribeClusterHandler
    : public TypedApiHandler<protocol::DescribeClusterRequest, protocol::DescribeClusterResponse> {
 public:
  explicit DescribeClusterHandler(BrokerServices& services)
      : TypedApiHandler(protocol::DescribeClusterRequest::kApiKey, 0, 2), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::DescribeClusterRequest& body, Responder& out) override;
  protocol::DescribeClusterResponse error_response(const protocol::DescribeClusterRequest& body,
                                                   ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
