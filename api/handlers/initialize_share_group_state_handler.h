// InitializeShareGroupState (key 83), v0: sets the state epoch and start offset of
// share-partitions (the group coordinator's persister calls it when a share
// group first gets a partition, and for AlterShareGroupOffsets).
//
// Inter-broker: CLUSTER_ACTION on the cluster (KafkaApis), refused with
// CLUSTER_AUTHORIZATION_FAILED on every partition. Each (topic, partition)
// goes to the share coordinator (coordinator/share/share_coordinator.h);
// the answer is sent from its thread once every partition answered
// (share_group_state_support.h). Kafka's checks and messages.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/initialize_share_group_state_request.h"
#include "protocol/generated/initialize_share_group_state_response.h"

namespace skiff::api {

class InitializeShareGroupStateHandler
    : public TypedApiHandler<protocol::InitializeShareGroupStateRequest, protocol::InitializeShareGroupStateResponse> {
 public:
  explicit InitializeShareGroupStateHandler(BrokerServices& services)
      : TypedApiHandler(protocol::InitializeShareGroupStateRequest::kApiKey, 0, 0), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::InitializeShareGroupStateRequest& body, Responder& out) override;
  protocol::InitializeShareGroupStateResponse error_response(const protocol::InitializeShareGroupStateRequest& body,
                                                             ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
