// StreamsGroupTopologyDescriptionUpdate (key 93), v0: KIP-1331. A member of
// a streams group sends its application's topology description (processor
// nodes, stores, successors) for the topology epoch it runs; the group
// coordinator keeps it for StreamsGroupDescribe v1+ and the web console
// (update_streams_topology_description). Kafka 4.4 hands it to a broker
// plugin and answers UNSUPPORTED_VERSION without one; Skiff keeps it itself.
// Checked here as Kafka's KafkaApis and GroupCoordinatorService do: READ on
// the group (GROUP_AUTHORIZATION_FAILED); MemberId and GroupId not empty
// (INVALID_REQUEST, Kafka's messages).
// Served at streams.version 1+ (KafkaApis' feature gate).
//
// Threads: any handler thread.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/streams_group_topology_description_update_request.h"
#include "protocol/generated/streams_group_topology_description_update_response.h"

namespace skiff::api {

class StreamsGroupTopologyDescriptionUpdateHandler
    : public TypedApiHandler<protocol::StreamsGroupTopologyDescriptionUpdateRequest,
                             protocol::StreamsGroupTopologyDescriptionUpdateResponse> {
 public:
  explicit StreamsGroupTopologyDescriptionUpdateHandler(BrokerServices& services)
      : TypedApiHandler(protocol::StreamsGroupTopologyDescriptionUpdateRequest::kApiKey, 0, 0), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::StreamsGroupTopologyDescriptionUpdateRequest& body,
              Responder& out) override;
  protocol::StreamsGroupTopologyDescriptionUpdateResponse error_response(
      const protocol::StreamsGroupTopologyDescriptionUpdateRequest& body, ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
