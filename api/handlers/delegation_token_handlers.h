// The delegation-token APIs (KIP-48, KIP-373) at Kafka 4.4's versions:
// CreateDelegationToken (38, v1-3), RenewDelegationToken (39, v1-2),
// ExpireDelegationToken (40, v1-2), DescribeDelegationToken (41, v1-3).
// One handler class per API; they share Kafka's gate (KafkaApis.
// allowTokenRequests): a request over PLAINTEXT, over SSL without a client
// certificate (User:ANONYMOUS), or from a token-authenticated principal gets
// DELEGATION_TOKEN_REQUEST_NOT_ALLOWED. The decisions (lifetimes, owner and
// renewer checks, expiry) are the token store's (security/sasl/
// delegation_tokens.h); the authorization of KIP-373 is here:
//   - create for another owner needs CREATE_TOKENS on the USER resource
//     "User:<owner>" (else DELEGATION_TOKEN_AUTHORIZATION_FAILED); a renewer
//     whose type is not User is INVALID_PRINCIPAL_TYPE;
//   - describe shows a token to its owner, requester and renewers, and to a
//     principal with DESCRIBE on the DELEGATION_TOKEN resource (its id) or
//     DESCRIBE_TOKENS on the USER resource of its owner; an `owners` filter
//     keeps the tokens one of them owns, requested or may renew; an empty
//     list answers none, null every eligible token.
// Errors the gate finds answer as Kafka's broker does (timestamps -1); the
// store's as its controller does (timestamps 0).
// Threads: any handler thread; the store is thread-safe.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/create_delegation_token_request.h"
#include "protocol/generated/create_delegation_token_response.h"
#include "protocol/generated/describe_delegation_token_request.h"
#include "protocol/generated/describe_delegation_token_response.h"
#include "protocol/generated/expire_delegation_token_request.h"
#include "protocol/generated/expire_delegation_token_response.h"
#include "protocol/generated/renew_delegation_token_request.h"
#include "protocol/generated/renew_delegation_token_response.h"

namespace skiff::api {

class CreateDelegationTokenHandler
    : public TypedApiHandler<protocol::CreateDelegationTokenRequest, protocol::CreateDelegationTokenResponse> {
 public:
  explicit CreateDelegationTokenHandler(BrokerServices& services)
      : TypedApiHandler(protocol::CreateDelegationTokenRequest::kApiKey,
                        protocol::CreateDelegationTokenRequest::kMinVersion,
                        protocol::CreateDelegationTokenRequest::kMaxVersion),
        services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::CreateDelegationTokenRequest& body, Responder& out) override;
  protocol::CreateDelegationTokenResponse error_response(const protocol::CreateDelegationTokenRequest& body,
                                                         ErrorCode error) override;

 private:
  BrokerServices& services_;
};

class RenewDelegationTokenHandler
    : public TypedApiHandler<protocol::RenewDelegationTokenRequest, protocol::RenewDelegationTokenResponse> {
 public:
  explicit RenewDelegationTokenHandler(BrokerServices& services)
      : TypedApiHandler(protocol::RenewDelegationTokenRequest::kApiKey,
                        protocol::RenewDelegationTokenRequest::kMinVersion,
                        protocol::RenewDelegationTokenRequest::kMaxVersion),
        services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::RenewDelegationTokenRequest& body, Responder& out) override;
  protocol::RenewDelegationTokenResponse error_response(const protocol::RenewDelegationTokenRequest& body,
                                                        ErrorCode error) override;

 private:
  BrokerServices& services_;
};

class ExpireDelegationTokenHandler
    : public TypedApiHandler<protocol::ExpireDelegationTokenRequest, protocol::ExpireDelegationTokenResponse> {
 public:
  explicit ExpireDelegationTokenHandler(BrokerServices& services)
      : TypedApiHandler(protocol::ExpireDelegationTokenRequest::kApiKey,
                        protocol::ExpireDelegationTokenRequest::kMinVersion,
                        protocol::ExpireDelegationTokenRequest::kMaxVersion),
        services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::ExpireDelegationTokenRequest& body, Responder& out) override;
  protocol::ExpireDelegationTokenResponse error_response(const protocol::ExpireDelegationTokenRequest& body,
                                                         ErrorCode error) override;

 private:
  BrokerServices& services_;
};

class DescribeDelegationTokenHandler
    : public TypedApiHandler<protocol::DescribeDelegationTokenRequest, protocol::DescribeDelegationTokenResponse> {
 public:
  explicit DescribeDelegationTokenHandler(BrokerServices& services)
      : TypedApiHandler(protocol::DescribeDelegationTokenRequest::kApiKey,
                        protocol::DescribeDelegationTokenRequest::kMinVersion,
                        protocol::DescribeDelegationTokenRequest::kMaxVersion),
        services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::DescribeDelegationTokenRequest& body, Responder& out) override;
  protocol::DescribeDelegationTokenResponse error_response(const protocol::DescribeDelegationTokenRequest& body,
                                                           ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
