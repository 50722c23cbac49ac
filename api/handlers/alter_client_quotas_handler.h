// AlterClientQuotas (key 49), v0-1 (KIP-546; `kafka-configs --alter
// --entity-type users|clients|ips`): sets and removes client quota configs
// in the store (api/quota/client_quota_store.h), which checks each entry as
// Kafka 4.4's ClientQuotaControlManager (INVALID_REQUEST with Kafka's
// message) and applies the valid ones together and durably before the
// answer. Needs ALTER_CONFIGS on the cluster, else every entry
// CLUSTER_AUTHORIZATION_FAILED (Kafka's getErrorResponse). As Kafka's
// fromQuotaEntities, one result per distinct entity: an entity named twice
// answers once, with the later entry's result.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/alter_client_quotas_request.h"
#include "protocol/generated/alter_client_quotas_response.h"

namespace skiff::api {

class AlterClientQuotasHandler
    : public TypedApiHandler<protocol::AlterClientQuotasRequest, protocol::AlterClientQuotasResponse> {
 public:
  explicit AlterClientQuotasHandler(BrokerServices& services)
      : TypedApiHandler(protocol::AlterClientQuotasRequest::kApiKey, 0, 1), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::AlterClientQuotasRequest& body, Responder& out) override;
  protocol::AlterClientQuotasResponse error_response(const protocol::AlterClientQuotasRequest& body,
                                                     ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
