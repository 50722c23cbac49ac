// DeleteAcls (key 31), v1-3: removes the ACLs each filter matches and lists
// them. Needs ALTER on the cluster. More than 10000 ACLs in one request:
// INVALID_REQUEST for every filter, nothing removed, as Kafka. Without an
// authorizer: SECURITY_DISABLED, "No Authorizer is configured.". A filter with
// a code Kafka does not know closes the connection.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/delete_acls_request.h"
#include "protocol/generated/delete_acls_response.h"

namespace skiff::api {

class DeleteAclsHandler : public TypedApiHandler<protocol::DeleteAclsRequest, protocol::DeleteAclsResponse> {
 public:
  explicit DeleteAclsHandler(BrokerServices& services)
      : TypedApiHandler(protocol::DeleteAclsRequest::kApiKey, 1, 3), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::DeleteAclsRequest& body, Responder& out) override;
  protocol::DeleteAclsResponse error_response(const protocol::DeleteAclsRequest& body, ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
