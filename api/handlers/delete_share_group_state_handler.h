// DeleteShareGroupState (key 86), v0: deletes the state of share-partitions
// (DeleteShareGroupOffsets, DeleteGroups of a share group).
//
// Inter-broker: CLUSTER_ACTION on the cluster (KafkaApis), refused with
// CLUSTER_AUTHORIZATION_FAILED on every partition. Each (topic, partition)
// goes to the share coordinator (coordinator/share/share_coordinator.h);
// the answer is sent from its thread once every partition answered
// (share_group_state_support.h). Kafka's checks and messages.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/delete_share_group_state_request.h"
#include "protocol/generated/delete_share_group_state_response.h"

namespace skiff::api {

class DeleteShareGroupStateHandler
    : public TypedApiHandler<protocol::DeleteShareGroupStateRequest, protocol::DeleteShareGroupStateResponse> {
 public:
  explicit DeleteShareGroupStateHandler(BrokerServices& services)
      : TypedApiHandler(protocol::DeleteShareGroupStateRequest::kApiKey, 0, 0), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::DeleteShareGroupStateRequest& body, Responder& out) override;
  protocol::DeleteShareGroupStateResponse error_response(const protocol::DeleteShareGroupStateRequest& body,
                                                         ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
