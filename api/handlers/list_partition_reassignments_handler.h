// ListPartitionReassignments (key 46), v0: a one-node broker never has a
// reassignment in progress (AlterPartitionReassignments accepts only the
// replica set the partition already has), so the answer is always empty, for
// all partitions and for named ones, existing or not, as Kafka answers.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/list_partition_reassignments_request.h"
#include "protocol/generated/list_partition_reassignments_response.h"

namespace skiff::api {

class ListPartitionReassignmentsHandler : public TypedApiHandler<protocol::ListPartitionReassignmentsRequest,
                                                                 protocol::ListPartitionReassignmentsResponse> {
 public:
  explicit ListPartitionReassignmentsHandler(BrokerServices& services)
      : TypedApiHandler(protocol::ListPartitionReassignmentsRequest::kApiKey, 0, 0), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::ListPartitionReassignmentsRequest& body, Responder& out) override;
  protocol::ListPartitionReassignmentsResponse error_response(const protocol::ListPartitionReassignmentsRequest& body,
                                                              ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
