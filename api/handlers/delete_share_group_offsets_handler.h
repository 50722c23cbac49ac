// DeleteShareGroupOffsets (key 92), v0: deletes the share-partition state of
// topics of an empty share group (through the port). DELETE on the group
// (GROUP_AUTHORIZATION_FAILED) and READ on each topic
// (TOPIC_AUTHORIZATION_FAILED for it).
//
// Not registered in KafkaApis yet; tests call it directly.
//
// Threads: any handler thread; answers on the port's thread.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/delete_share_group_offsets_request.h"
#include "protocol/generated/delete_share_group_offsets_response.h"

namespace skiff::api {

class DeleteShareGroupOffsetsHandler
    : public TypedApiHandler<protocol::DeleteShareGroupOffsetsRequest, protocol::DeleteShareGroupOffsetsResponse> {
 public:
  explicit DeleteShareGroupOffsetsHandler(BrokerServices& services)
      : TypedApiHandler(protocol::DeleteShareGroupOffsetsRequest::kApiKey, 0, 0), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::DeleteShareGroupOffsetsRequest& body, Responder& out) override;
  protocol::DeleteShareGroupOffsetsResponse error_response(const protocol::DeleteShareGroupOffsetsRequest& body,
                                                           ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
