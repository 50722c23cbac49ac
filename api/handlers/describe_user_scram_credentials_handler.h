// DescribeUserScramCredentials (key 50), v0 (KIP-554): the mechanisms and
// iteration counts of users' SCRAM credentials, never the credentials
// themselves. Needs DESCRIBE on the cluster, else CLUSTER_AUTHORIZATION_FAILED.
// No users (null or empty): every user with a credential. A named user
// without one: RESOURCE_NOT_FOUND; a user named twice: DUPLICATE_RESOURCE,
// with Kafka 4.4's messages (ScramImage.describe).
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/describe_user_scram_credentials_request.h"
#include "protocol/generated/describe_user_scram_credentials_response.h"

namespace skiff::api {

class DescribeUserScramCredentialsHandler : public TypedApiHandler<protocol::DescribeUserScramCredentialsRequest,
                                                                   protocol::DescribeUserScramCredentialsResponse> {
 public:
  explicit DescribeUserScramCredentialsHandler(BrokerServices& services)
      : TypedApiHandler(protocol::DescribeUserScramCredentialsRequest::kApiKey, 0, 0), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::DescribeUserScramCredentialsRequest& body, Responder& out) override;
  protocol::DescribeUserScramCredentialsResponse error_response(
      const protocol::DescribeUserScramCredentialsRequest& body, ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
