// AddOffsetsToTxn (key 25), v0-4: adds the group's __consumer_offsets
// partition to the transaction (TV1 clients, before TxnOffsetCommit).
// Answered from the transaction coordinator's strand (coordinator/txn/txn_host.h);
// PRODUCER_FENCED is INVALID_PRODUCER_EPOCH before v2.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/add_offsets_to_txn_request.h"
#include "protocol/generated/add_offsets_to_txn_response.h"

namespace skiff::api {

class AddOffsetsToTxnHandler
    : public TypedApiHandler<protocol::AddOffsetsToTxnRequest, protocol::AddOffsetsToTxnResponse> {
 public:
  explicit AddOffsetsToTxnHandler(BrokerServices& services)
      : TypedApiHandler(protocol::AddOffsetsToTxnRequest::kApiKey, 0, 4), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::AddOffsetsToTxnRequest& body, Responder& out) override;
  protocol::AddOffsetsToTxnResponse error_response(const protocol::AddOffsetsToTxnRequest& body,
                                                   ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
