// ReadShareGroupState (key 84), v0: a share-partition leader reads the
// durable state (state epoch, start offset, state batches) when it loads a
// share-partition; a newer leader epoch is recorded first, an older one is
// FENCED_LEADER_EPOCH.
//
// Inter-broker: CLUSTER_ACTION on the cluster (KafkaApis), refused with
// CLUSTER_AUTHORIZATION_FAILED on every partition. Each (topic, partition)
// goes to the share coordinator (coordinator/share/share_coordinator.h);
// the answer is sent from its thread once every partition answered
// (share_group_state_support.h). Kafka's checks and messages.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/read_share_group_state_request.h"
#include "protocol/generated/read_share_group_state_response.h"

namespace skiff::api {

class ReadShareGroupStateHandler
    : public TypedApiHandler<protocol::ReadShareGroupStateRequest, protocol::ReadShareGroupStateResponse> {
 public:
  explicit ReadShareGroupStateHandler(BrokerServices& services)
      : TypedApiHandler(protocol::ReadShareGroupStateRequest::kApiKey, 0, 0), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::ReadShareGroupStateRequest& body, Responder& out) override;
  protocol::ReadShareGroupStateResponse error_response(const protocol::ReadShareGroupStateRequest& body,
                                                       ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
