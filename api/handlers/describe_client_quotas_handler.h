// DescribeClientQuotas (key 48), v0-1 (KIP-546; `kafka-configs --describe
// --entity-type users|clients|ips`): the client quota configs matching the
// filter, from the store (api/quota/client_quota_store.h), with Kafka 4.4's
// match semantics (ClientQuotasImage.describe). A bad filter answers the
// error (INVALID_REQUEST, or UNSUPPORTED_VERSION for an unknown entity type)
// with Kafka's message and null entries. Needs DESCRIBE_CONFIGS on the
// cluster, as Kafka 4.4, else CLUSTER_AUTHORIZATION_FAILED.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/describe_client_quotas_request.h"
#include "protocol/generated/describe_client_quotas_response.h"

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
