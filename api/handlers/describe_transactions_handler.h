// DescribeTransactions (key 65), v0: state, timeout, start time, producer id,
// epoch and partitions of each transactional id (TRANSACTIONAL_ID_NOT_FOUND
// for an unknown one), read on the transaction coordinator's strand
// (coordinator/txn/txn_host.h). Used by `kafka-transactions describe` / Admin.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/describe_transactions_request.h"
#include "protocol/generated/describe_transactions_response.h"

namespace skiff::api {

class DescribeTransactionsHandler
    : public TypedApiHandler<protocol::DescribeTransactionsRequest, protocol::DescribeTransactionsResponse> {
 public:
  explicit DescribeTransactionsHandler(BrokerServices& services)
      : TypedApiHandler(protocol::DescribeTransactionsRequest::kApiKey, 0, 0), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::DescribeTransactionsRequest& body, Responder& out) override;
  protocol::DescribeTransactionsResponse error_response(const protocol::DescribeTransactionsRequest& body,
                                                        ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
