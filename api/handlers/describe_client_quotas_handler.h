// DescribeClientQuotas (key 48), v0-1: Skiff enforces no client quotas, so
// every filter matches nothing: no entries, no error. Needs DESCRIBE_CONFIGS
// on the cluster, as Kafka 4.4, else CLUSTER_AUTHORIZATION_FAILED. Served
// because kafka-configs --describe --entity-type users asks it before the
// users' SCRAM credentials (DescribeUserScramCredentials), and fails without it.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "api/protocol/generated/describe_client_quotas_request.h"
#include "api/protocol/generated/describe_client_quotas_response.h"

namespace skiff::api {

class DescribeClientQuotasHandler
    : public TypedApiHandler<protocol::DescribeClientQuotasRequest, protocol::DescribeClientQuotasResponse> {
 public:
  explicit DescribeClientQuotasHandler(BrokerServices& services)
      : TypedApiHandler(protocol::DescribeClientQuotasRequest::kApiKey, 0, 1), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::DescribeClientQuotasRequest& body, Responder& out) override;
  protocol::DescribeClientQuotasResponse error_response(const protocol::DescribeClientQuotasRequest& body,
                                                        ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
