// ReadShareGroupStateSummary (key 87), v0-1: state epoch, leader epoch, start
// offset and (v1) delivery complete count of share-partitions
// (DescribeShareGroupOffsets); an unknown one answers start offset -1.
//
// Inter-broker: CLUSTER_ACTION on the cluster (KafkaApis), refused with
// CLUSTER_AUTHORIZATION_FAILED on every partition. Each (topic, partition)
// goes to the share coordinator (coordinator/share/share_coordinator.h);
// the answer is sent from its thread once every partition answered
// (share_group_state_support.h). Kafka's checks and messages.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/read_share_group_state_summary_request.h"
#include "protocol/generated/read_share_group_state_summary_response.h"

namespace skiff::api {

class ReadShareGroupStateSummaryHandler : public TypedApiHandler<protocol::ReadShareGroupStateSummaryRequest,
                                                                 protocol::ReadShareGroupStateSummaryResponse> {
 public:
  explicit ReadShareGroupStateSummaryHandler(BrokerServices& services)
      : TypedApiHandler(protocol::ReadShareGroupStateSummaryRequest::kApiKey, 0, 1), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::ReadShareGroupStateSummaryRequest& body, Responder& out) override;
  protocol::ReadShareGroupStateSummaryResponse error_response(const protocol::ReadShareGroupStateSummaryRequest& body,
                                                              ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
