// ConsumerGroupHeartbeat (key 68), v0-1: KIP-848's consumer group protocol.
// A member joins (epoch 0), heartbeats with its epoch and owned partitions,
// and leaves (-1, or -2 for a static member); the answer carries its epoch,
// the heartbeat interval and, when it changed, its assignment. The protocol
// is GroupCoordinator's (coordinator/group/consumer_heartbeat.cc); this handler
// translates the wire structs and resolves topic names for it.
//
// Threads: any handler thread; it answers at once (nothing waits).
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/consumer_group_heartbeat_request.h"
#include "protocol/generated/consumer_group_heartbeat_response.h"

namespace skiff::api {

class ConsumerGroupHeartbeatHandler
    : public TypedApiHandler<protocol::ConsumerGroupHeartbeatRequest, protocol::ConsumerGroupHeartbeatResponse> {
 public:
  explicit ConsumerGroupHeartbeatHandler(BrokerServices& services)
      : TypedApiHandler(protocol::ConsumerGroupHeartbeatRequest::kApiKey, 0, 1), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::ConsumerGroupHeartbeatRequest& body, Responder& out) override;
  protocol::ConsumerGroupHeartbeatResponse error_response(const protocol::ConsumerGroupHeartbeatRequest& body,
                                                          ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
