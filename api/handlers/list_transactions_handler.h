// ListTransactions (key 66), v0-1: the transactional ids the coordinator
// knows, filtered by state (unknown state names listed back), producer id
// and, from v1, minimum duration. v2 (TransactionalIdPattern, matched by
// Kafka with RE2J) is not advertised: Skiff has no RE2 and std::regex is not
// RE2's syntax, so a client asking for a pattern gets UnsupportedVersion
// rather than a wrong answer. Read on the coordinator's strand (api/txn_host.h).
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "api/protocol/generated/list_transactions_request.h"
#include "api/protocol/generated/list_transactions_response.h"

namespace skiff::api {

class ListTransactionsHandler
    : public TypedApiHandler<protocol::ListTransactionsRequest, protocol::ListTransactionsResponse> {
 public:
  explicit ListTransactionsHandler(BrokerServices& services)
      : TypedApiHandler(protocol::ListTransactionsRequest::kApiKey, 0, 1), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::ListTransactionsRequest& body, Responder& out) override;
  protocol::ListTransactionsResponse error_response(const protocol::ListTransactionsRequest& body,
                                                    ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
