// TxnOffsetCommit (key 28), v0-6 (KIP-447): the offsets of a transaction,
// pending in the group coordinator until the transaction's marker commits or
// drops them. First the transaction coordinator checks that the group's
// `__consumer_offsets` partition is in the producer's ongoing transaction
// (v5+, transaction version 2: adds it, as Kafka 4.4's implicit
// AddOffsetsToTxn) through BrokerServices::txn_gate; then the group checks
// member / generation / instance id (v3+) and the producer epoch. v6 names
// topics by id. Answered once the pending offsets are on disk.
//
// Registered only when the transaction coordinator runs (txn_gate set): with
// no coordinator to send markers, pending offsets could never resolve.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/txn_offset_commit_request.h"
#include "protocol/generated/txn_offset_commit_response.h"

namespace skiff::api {

class TxnOffsetCommitHandler
    : public TypedApiHandler<protocol::TxnOffsetCommitRequest, protocol::TxnOffsetCommitResponse> {
 public:
  explicit TxnOffsetCommitHandler(BrokerServices& services)
      : TypedApiHandler(protocol::TxnOffsetCommitRequest::kApiKey, 0, 6), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::TxnOffsetCommitRequest& body, Responder& out) override;
  protocol::TxnOffsetCommitResponse error_response(const protocol::TxnOffsetCommitRequest& body,
                                                   ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
