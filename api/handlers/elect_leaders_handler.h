// ElectLeaders (key 43), v0-2: this node is the only replica and the leader
// of every partition, so no election is ever needed. Each named partition
// that exists gets ELECTION_NOT_NEEDED, any other UNKNOWN_TOPIC_OR_PARTITION
// with Kafka's message. A request for all partitions (null topic list) gets
// an empty result, as from Kafka, which lists only the partitions where it
// tried an election (`kafka-leader-election --all-topic-partitions` then
// prints nothing and succeeds).
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/elect_leaders_request.h"
#include "protocol/generated/elect_leaders_response.h"

namespace skiff::api {

class ElectLeadersHandler : public TypedApiHandler<protocol::ElectLeadersRequest, protocol::ElectLeadersResponse> {
 public:
  explicit ElectLeadersHandler(BrokerServices& services)
      : TypedApiHandler(protocol::ElectLeadersRequest::kApiKey, 0, 2), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::ElectLeadersRequest& body, Responder& out) override;
  protocol::ElectLeadersResponse error_response(const protocol::ElectLeadersRequest& body, ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
