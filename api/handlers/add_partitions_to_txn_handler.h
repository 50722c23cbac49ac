// AddPartitionsToTxn (key 24), v0-5: adds partitions to a producer's ongoing
// transaction (the TV1 path; TV2 clients add them implicitly with Produce).
// v0-3: one transaction at the top level, errors per partition; PRODUCER_FENCED
// is INVALID_PRODUCER_EPOCH before v2. v4+: Kafka's batched broker-to-broker
// form (several transactions, verify-only); Kafka 4.4 guards it with
// CLUSTER_ACTION, which without an authorizer (Skiff has none) lets every
// caller through, so it is served the same way.
// Partitions that do not exist get UNKNOWN_TOPIC_OR_PARTITION and the others
// of that transaction OPERATION_NOT_ATTEMPTED, as Kafka.
// Answered from the transaction coordinator's strand (coordinator/txn/txn_host.h).
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/add_partitions_to_txn_request.h"
#include "protocol/generated/add_partitions_to_txn_response.h"

namespace skiff::api {

class AddPartitionsToTxnHandler
    : public TypedApiHandler<protocol::AddPartitionsToTxnRequest, protocol::AddPartitionsToTxnResponse> {
 public:
  explicit AddPartitionsToTxnHandler(BrokerServices& services)
      : TypedApiHandler(protocol::AddPartitionsToTxnRequest::kApiKey, 0, 5), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::AddPartitionsToTxnRequest& body, Responder& out) override;
  protocol::AddPartitionsToTxnResponse error_response(const protocol::AddPartitionsToTxnRequest& body,
                                                      ErrorCode error) override;

 private:
  void handle_v3(ApiRequest& request, protocol::AddPartitionsToTxnRequest& body, Responder& out);
  void handle_batch(const ApiRequest& request, protocol::AddPartitionsToTxnRequest& body, Responder& out);
  BrokerServices& services_;
};

}  // namespace skiff::api
