// EndTxn (key 26), v0-5: commits or aborts the producer's transaction. v5 is
// transaction version 2 (KIP-890): every end bumps the epoch and the answer
// carries the new producer id and epoch. The answer goes out once the
// Prepare* state is durable; markers follow (coordinator/txn/txn_host.h).
// PRODUCER_FENCED is INVALID_PRODUCER_EPOCH before v2.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/end_txn_request.h"
#include "protocol/generated/end_txn_response.h"

namespace skiff::api {

class EndTxnHandler : public TypedApiHandler<protocol::EndTxnRequest, protocol::EndTxnResponse> {
 public:
  explicit EndTxnHandler(BrokerServices& services)
      : TypedApiHandler(protocol::EndTxnRequest::kApiKey, 0, 5), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::EndTxnRequest& body, Responder& out) override;
  protocol::EndTxnResponse error_response(const protocol::EndTxnRequest& body, ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
