// DescribeProducers (key 61), v0: the idempotent producers each partition
// tracks (id, epoch, last sequence and timestamp).
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/describe_producers_request.h"
#include "protocol/generated/describe_producers_response.h"

namespace skiff::api {

class DescribeProducersHandler
    : public TypedApiHandler<protocol::DescribeProducersRequest, protocol::DescribeProducersResponse> {
 public:
  explicit DescribeProducersHandler(BrokerServices& services)
      : TypedApiHandler(protocol::DescribeProducersRequest::kApiKey, 0, 0), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::DescribeProducersRequest& body, Responder& out) override;
  protocol::DescribeProducersResponse error_response(const protocol::DescribeProducersRequest& body,
                                                     ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
