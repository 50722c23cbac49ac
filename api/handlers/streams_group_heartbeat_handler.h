// StreamsGroupHeartbeat (key 88), v0-1: KIP-1071's streams groups. A Kafka
// Streams member joins with its topology (epoch 0), heartbeats with its
// owned tasks, and leaves; the answer carries its tasks, the statuses and the
// endpoint-to-partitions map. The protocol is GroupCoordinator's
// (coordinator/group/streams_heartbeat.cc); this handler does what Kafka
// 4.4's KafkaApis.handleStreamsGroupHeartbeat does around it:
//   - READ on the group, else GROUP_AUTHORIZATION_FAILED;
//   - with a topology: Kafka's internal topics and invalid topic names are
//     STREAMS_INVALID_TOPOLOGY (Kafka's messages), a topic the principal may
//     not DESCRIBE is TOPIC_AUTHORIZATION_FAILED (streams_group_support.h);
//   - the internal topics the coordinator asks for are created through
//     CreateTopics' path when the principal may CREATE them (on the cluster,
//     else per topic); the others are named in the MISSING_INTERNAL_TOPICS
//     status ("Unauthorized to CREATE on topics a, b."), and failed creations
//     too ("Creation failed: a (why)."). The next heartbeat sees the topics.
// Served at streams.version 1+ (KafkaApis' feature gate; else
// UNSUPPORTED_VERSION, as Kafka's isStreamsGroupProtocolEnabled).
//
// Threads: any handler thread; it answers at once. The topics are created on
// the handler's thread after the coordinator returned (no group lock held).
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/streams_group_heartbeat_request.h"
#include "protocol/generated/streams_group_heartbeat_response.h"

namespace skiff::api {

class StreamsGroupHeartbeatHandler
    : public TypedApiHandler<protocol::StreamsGroupHeartbeatRequest, protocol::StreamsGroupHeartbeatResponse> {
 public:
  explicit StreamsGroupHeartbeatHandler(BrokerServices& services)
      : TypedApiHandler(protocol::StreamsGroupHeartbeatRequest::kApiKey, 0, 1), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::StreamsGroupHeartbeatRequest& body, Responder& out) override;
  protocol::StreamsGroupHeartbeatResponse error_response(const protocol::StreamsGroupHeartbeatRequest& body,
                                                         ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
