// FindCoordinator (key 10), v0-6: this node coordinates every group (key_type 0),
// every transactional id (key_type 1; an empty id is INVALID_REQUEST) and,
// from v6, every share-partition (key_type 2, KIP-932: "groupId:topicId:partition",
// Kafka's SharePartitionKey form, else INVALID_REQUEST; CLUSTER_ACTION on the
// cluster, as KafkaApis). From v4 several keys are asked at once (coordinator_keys).
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/find_coordinator_request.h"
#include "protocol/generated/find_coordinator_response.h"

namespace skiff::api {

class FindCoordinatorHandler
    : public TypedApiHandler<protocol::FindCoordinatorRequest, protocol::FindCoordinatorResponse> {
 public:
  explicit FindCoordinatorHandler(BrokerServices& services)
      : TypedApiHandler(protocol::FindCoordinatorRequest::kApiKey, 0, 6), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::FindCoordinatorRequest& body, Responder& out) override;
  protocol::FindCoordinatorResponse error_response(const protocol::FindCoordinatorRequest& body,
                                                   ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
