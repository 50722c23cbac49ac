// CreateAcls (key 30), v1-3: adds ACLs, one result per creation. Needs ALTER
// on the cluster. Kafka's checks: the CLUSTER resource is named
// kafka-cluster, names are not empty, LITERAL or PREFIXED only, a principal
// "Type:name", a host ("*" or an address); each failure INVALID_REQUEST with
// Kafka's message. Without an authorizer: SECURITY_DISABLED, "No Authorizer
// is configured.". A code Kafka does not know closes the connection (Kafka
// cannot parse such a request).
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/create_acls_request.h"
#include "protocol/generated/create_acls_response.h"

namespace skiff::api {

class CreateAclsHandler : public TypedApiHandler<protocol::CreateAclsRequest, protocol::CreateAclsResponse> {
 public:
  explicit CreateAclsHandler(BrokerServices& services)
      : TypedApiHandler(protocol::CreateAclsRequest::kApiKey, 1, 3), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::CreateAclsRequest& body, Responder& out) override;
  protocol::CreateAclsResponse error_response(const protocol::CreateAclsRequest& body, ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
