// AlterUserScramCredentials (key 51), v0 (KIP-554): upserts and deletes SCRAM
// credentials, one result per user. Needs ALTER on the cluster, else
// CLUSTER_AUTHORIZATION_FAILED for every user. As Kafka 4.4's
// ScramControlManager: a user altered twice in one request (two deletions, a
// deletion and an upsertion, ...) fails with DUPLICATE_RESOURCE; an empty name
// or salt, or iterations outside [4096, 16384], UNACCEPTABLE_CREDENTIAL; an
// unknown mechanism UNSUPPORTED_SASL_MECHANISM; deleting a missing credential
// RESOURCE_NOT_FOUND. The client sends the salted password; the broker keeps
// StoredKey and ServerKey. The valid changes are applied together and durably
// (security/sasl/scram_store.h) before the answer; a failed write fails them all.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/alter_user_scram_credentials_request.h"
#include "protocol/generated/alter_user_scram_credentials_response.h"

namespace skiff::api {

class AlterUserScramCredentialsHandler
    : public TypedApiHandler<protocol::AlterUserScramCredentialsRequest, protocol::AlterUserScramCredentialsResponse> {
 public:
  explicit AlterUserScramCredentialsHandler(BrokerServices& services)
      : TypedApiHandler(protocol::AlterUserScramCredentialsRequest::kApiKey, 0, 0), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::AlterUserScramCredentialsRequest& body, Responder& out) override;
  protocol::AlterUserScramCredentialsResponse error_response(const protocol::AlterUserScramCredentialsRequest& body,
                                                             ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
