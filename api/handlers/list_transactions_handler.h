// ListTransactions (key 66), v0-2: the transactional ids the coordinator
// knows, filtered by state (unknown state names listed back), producer id,
// from v1 minimum duration, and from v2 a transactional id pattern (RE2/J
// syntax, whole-id match, as Kafka 4.4: protocol/name_pattern.h); an invalid
// pattern answers INVALID_REGULAR_EXPRESSION. Read on the coordinator's
// strand (coordinator/txn/txn_host.h); the pattern is compiled on the handler thread.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/list_transactions_request.h"
#include "protocol/generated/list_transactions_response.h"

namespace skiff::api {

class ListTransactionsHandler
    : public TypedApiHandler<protocol::ListTransactionsRequest, protocol::ListTransactionsResponse> {
 public:
  explicit ListTransactionsHandler(BrokerServices& services)
      : TypedApiHandler(protocol::ListTransactionsRequest::kApiKey, 0, 2), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::ListTransactionsRequest& body, Responder& out) override;
  protocol::ListTransactionsResponse error_response(const protocol::ListTransactionsRequest& body,
                                                    ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
