// OffsetForLeaderEpoch (key 23), advertised 2-4 (librdkafka sends exactly 2
// after a leader change; the Java consumer validates positions with it).
// This node has led every partition since epoch 0, so the end offset of
// epoch 0 is the log end offset.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/offset_for_leader_epoch_request.h"
#include "protocol/generated/offset_for_leader_epoch_response.h"

namespace skiff::api {

class OffsetForLeaderEpochHandler
    : public TypedApiHandler<protocol::OffsetForLeaderEpochRequest, protocol::OffsetForLeaderEpochResponse> {
 public:
  explicit OffsetForLeaderEpochHandler(BrokerServices& services)
      : TypedApiHandler(protocol::OffsetForLeaderEpochRequest::kApiKey, 2, 4), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::OffsetForLeaderEpochRequest& body, Responder& out) override;
  protocol::OffsetForLeaderEpochResponse error_response(const protocol::OffsetForLeaderEpochRequest& body,
                                                        ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
