// AlterShareGroupOffsets (key 91), v0: sets the start offsets of an empty
// share group's partitions (the share-partition state initialized again
// through the port). READ on the group (GROUP_AUTHORIZATION_FAILED) and on
// each topic (TOPIC_AUTHORIZATION_FAILED for its partitions).
//
// Not registered in KafkaApis yet; tests call it directly.
//
// Threads: any handler thread; answers on the port's thread.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/alter_share_group_offsets_request.h"
#include "protocol/generated/alter_share_group_offsets_response.h"

namespace skiff::api {

class AlterShareGroupOffsetsHandler
    : public TypedApiHandler<protocol::AlterShareGroupOffsetsRequest, protocol::AlterShareGroupOffsetsResponse> {
 public:
  explicit AlterShareGroupOffsetsHandler(BrokerServices& services)
      : TypedApiHandler(protocol::AlterShareGroupOffsetsRequest::kApiKey, 0, 0), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::AlterShareGroupOffsetsRequest& body, Responder& out) override;
  protocol::AlterShareGroupOffsetsResponse error_response(const protocol::AlterShareGroupOffsetsRequest& body,
                                                          ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
