// AlterPartitionReassignments (key 45), v0-1: on a one-node broker the only
// replica set a partition can have is this broker alone. A reassignment to
// exactly that is accepted as a no-op (Kafka accepts it too and completes it at
// once); any other set is refused per partition with Kafka's error and message
// (INVALID_REPLICA_ASSIGNMENT: an empty list, a broker named twice, a broker
// that is not this one). Cancelling (null replicas) gets
// NO_REASSIGNMENT_IN_PROGRESS; an unknown topic or partition
// UNKNOWN_TOPIC_OR_PARTITION, with Kafka's messages.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/alter_partition_reassignments_request.h"
#include "protocol/generated/alter_partition_reassignments_response.h"

namespace skiff::api {

class AlterPartitionReassignmentsHandler : public TypedApiHandler<protocol::AlterPartitionReassignmentsRequest,
                                                                  protocol::AlterPartitionReassignmentsResponse> {
 public:
  explicit AlterPartitionReassignmentsHandler(BrokerServices& services)
      : TypedApiHandler(protocol::AlterPartitionReassignmentsRequest::kApiKey, 0, 1), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::AlterPartitionReassignmentsRequest& body, Responder& out) override;
  protocol::AlterPartitionReassignmentsResponse error_response(const protocol::AlterPartitionReassignmentsRequest& body,
                                                               ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
