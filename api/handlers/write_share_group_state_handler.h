// WriteShareGroupState (key 85), v0-1: a share-partition leader writes the
// changed state batches, start offset and (v1, KIP-1226) delivery complete
// count; fenced by leader and state epochs.
//
// Inter-broker: CLUSTER_ACTION on the cluster (KafkaApis), refused with
// CLUSTER_AUTHORIZATION_FAILED on every partition. Each (topic, partition)
// goes to the share coordinator (coordinator/share/share_coordinator.h);
// the answer is sent from its thread once every partition answered
// (share_group_state_support.h). Kafka's checks and messages.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/write_share_group_state_request.h"
#include "protocol/generated/write_share_group_state_response.h"

namespace skiff::api {

class WriteShareGroupStateHandler
    : public TypedApiHandler<protocol::WriteShareGroupStateRequest, protocol::WriteShareGroupStateResponse> {
 public:
  explicit WriteShareGroupStateHandler(BrokerServices& services)
      : TypedApiHandler(protocol::WriteShareGroupStateRequest::kApiKey, 0, 1), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::WriteShareGroupStateRequest& body, Responder& out) override;
  protocol::WriteShareGroupStateResponse error_response(const protocol::WriteShareGroupStateRequest& body,
                                                        ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
