// DescribeAcls (key 29), v1-3: the ACLs matching one filter, grouped by
// resource pattern. Needs DESCRIBE on the cluster. Without an authorizer:
// SECURITY_DISABLED, "No Authorizer is configured on the broker", as Kafka 4.4.
// A filter with a code Kafka does not know is a request Kafka cannot parse:
// the connection is closed.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/describe_acls_request.h"
#include "protocol/generated/describe_acls_response.h"

namespace skiff::api {

class DescribeAclsHandler : public TypedApiHandler<protocol::DescribeAclsRequest, protocol::DescribeAclsResponse> {
 public:
  explicit DescribeAclsHandler(BrokerServices& services)
      : TypedApiHandler(protocol::DescribeAclsRequest::kApiKey, 1, 3), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::DescribeAclsRequest& body, Responder& out) override;
  protocol::DescribeAclsResponse error_response(const protocol::DescribeAclsRequest& body, ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
