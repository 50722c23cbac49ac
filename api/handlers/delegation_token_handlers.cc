#include "api/handlers/delegation_token_handlers.h"

#include "api/authorize.h"
#include "common/wall_clock.h"
#include "security/sasl/delegation_tokens.h"

namespace skiff::api {
namespace {

using Principal = sasl::PrincipalParts;
using sasl::split_principal;

// Kafka's KafkaApis.allowTokenRequests.
bool allow_token_requests(const BrokerServices& s, const ApiRequest& request) {
  const auto& ctx = request.context();
  const auto protocol = s.config.security_protocol(ctx.listener_name);
  if (ctx.token_authenticated || protocol == "PLAINTEXT") return false;
  return !(protocol == "SSL" && ctx.principal == "User:ANONYMOUS");
}

// The store, its expired tokens swept when the check interval has passed;
// null when the broker keeps none.
sasl::DelegationTokenStore* store(const BrokerServices& s) {
  if (s.delegation_tokens) s.delegation_tokens->maybe_sweep(wall_clock_ms());
  return s.delegation_tokens.get();
}

std::string bytes_text(const std::vector<uint8_t>& b) { return {b.begin(), b.end()}; }

// Renew's and Expire's answer: the new expiry, or the store's error (the
// controller's shape: expiry 0).
template <class Resp>
Resp expiry_response(const Expected<int64_t, ErrorCode>& result) {
  Resp resp;
  if (result) {
    resp.expiry_timestamp_ms = *result;
  } else {
    resp.error_code = code(result.error());
  }
  return resp;
}

}  // namespace

void CreateDelegationTokenHandler::handle(ApiRequest& request, protocol::CreateDelegationTokenRequest& body,
                                          Responder& out) {
  const Principal requester = split_principal(request.context().principal);
  Principal owner = requester;
  if (body.owner_principal_name && !body.owner_principal_name->empty())
    owner = {body.owner_principal_type.value_or(""), *body.owner_principal_name};
  protocol::CreateDelegationTokenResponse resp;
  resp.principal_type = owner.type;
  resp.principal_name = owner.name;
  resp.token_requester_principal_type = requester.type;
  resp.token_requester_principal_name = requester.name;
  auto refuse = [&](ErrorCode error) {  // the broker's checks: Kafka's prepareResponse
    resp.error_code = code(error);
    resp.issue_timestamp_ms = resp.expiry_timestamp_ms = resp.max_timestamp_ms = -1;
    out.send(resp);
  };
  if (!allow_token_requests(services_, request)) return refuse(ErrorCode::kDelegationTokenRequestNotAllowed);
  if (owner.text() != requester.text() &&
      !authorized(services_, request, AclOperation::kCreateTokens, ResourceType::kUser, owner.text()))
    return refuse(ErrorCode::kDelegationTokenAuthorizationFailed);
  std::vector<std::string> renewers;
  for (const auto& r : body.renewers) {
    if (r.principal_type != "User") return refuse(ErrorCode::kInvalidPrincipalType);
    renewers.push_back(r.principal_type + ":" + r.principal_name);
  }
  auto* tokens = store(services_);
  if (!tokens) return refuse(ErrorCode::kDelegationTokenAuthDisabled);
  auto made =
      tokens->create(owner.text(), requester.text(), std::move(renewers), body.max_lifetime_ms, wall_clock_ms());
  if (!made) {
    resp.error_code = code(made.error());
    out.send(resp);
    return;
  }
  resp.issue_timestamp_ms = made->info.issue_ms;
  resp.expiry_timestamp_ms = made->info.expiry_ms;
  resp.max_timestamp_ms = made->info.max_ms;
  resp.token_id = made->info.token_id;
  resp.hmac.assign(made->hmac.begin(), made->hmac.end());
  out.send(resp);
}

protocol::CreateDelegationTokenResponse CreateDelegationTokenHandler::error_response(
    const protocol::CreateDelegationTokenRequest&, ErrorCode error) {
  protocol::CreateDelegationTokenResponse resp;  // Kafka's getErrorResponse: owner and requester ANONYMOUS
  resp.error_code = code(error);
  resp.principal_type = resp.token_requester_principal_type = "User";
  resp.principal_name = resp.token_requester_principal_name = "ANONYMOUS";
  resp.issue_timestamp_ms = resp.expiry_timestamp_ms = resp.max_timestamp_ms = -1;
  return resp;
}

void RenewDelegationTokenHandler::handle(ApiRequest& request, protocol::RenewDelegationTokenRequest& body,
                                         Responder& out) {
  if (!allow_token_requests(services_, request))
    return out.send(error_response(body, ErrorCode::kDelegationTokenRequestNotAllowed));
  auto* tokens = store(services_);
  out.send(expiry_response<protocol::RenewDelegationTokenResponse>(
      tokens ? tokens->renew(bytes_text(body.hmac), request.context().principal, body.renew_period_ms, wall_clock_ms())
             : unexpected(ErrorCode::kDelegationTokenAuthDisabled)));
}

protocol::RenewDelegationTokenResponse RenewDelegationTokenHandler::error_response(
    const protocol::RenewDelegationTokenRequest&, ErrorCode error) {
  protocol::RenewDelegationTokenResponse resp;
  resp.error_code = code(error);
  resp.expiry_timestamp_ms = -1;
  return resp;
}

void ExpireDelegationTokenHandler::handle(ApiRequest& request, protocol::ExpireDelegationTokenRequest& body,
                                          Responder& out) {
  if (!allow_token_requests(services_, request))
    return out.send(error_response(body, ErrorCode::kDelegationTokenRequestNotAllowed));
  auto* tokens = store(services_);
  out.send(expiry_response<protocol::ExpireDelegationTokenResponse>(
      tokens ? tokens->expire(bytes_text(body.hmac), request.context().principal, body.expiry_time_period_ms,
                              wall_clock_ms())
             : unexpected(ErrorCode::kDelegationTokenAuthDisabled)));
}

protocol::ExpireDelegationTokenResponse ExpireDelegationTokenHandler::error_response(
    const protocol::ExpireDelegationTokenRequest&, ErrorCode error) {
  protocol::ExpireDelegationTokenResponse resp;
  resp.error_code = code(error);
  resp.expiry_timestamp_ms = -1;
  return resp;
}

namespace {

using Described = protocol::DescribeDelegationTokenResponse::DescribedDelegationToken;

Described described(const sasl::DelegationToken& t, int16_t version) {
  Described d;
  const Principal owner = split_principal(t.info.owner);
  d.principal_type = owner.type;
  d.principal_name = owner.name;
  if (version > 2) {
    const Principal requester = split_principal(t.info.requester);
    d.token_requester_principal_type = requester.type;
    d.token_requester_principal_name = requester.name;
  }
  d.issue_timestamp = t.info.issue_ms;
  d.expiry_timestamp = t.info.expiry_ms;
  d.max_timestamp = t.info.max_ms;
  d.token_id = t.info.token_id;
  d.hmac.assign(t.hmac.begin(), t.hmac.end());
  for (const auto& r : t.info.renewers) {
    const Principal p = split_principal(r);
    auto& out = d.renewers.emplace_back();
    out.principal_type = p.type;
    out.principal_name = p.name;
  }
  return d;
}

}  // namespace

// Kafka's KafkaApis.handleDescribeTokensRequest and its eligible() filter.
void DescribeDelegationTokenHandler::handle(ApiRequest& request, protocol::DescribeDelegationTokenRequest& body,
                                            Responder& out) {
  if (!allow_token_requests(services_, request))
    return out.send(error_response(body, ErrorCode::kDelegationTokenRequestNotAllowed));
  auto* tokens = store(services_);
  if (!tokens || !tokens->enabled()) return out.send(error_response(body, ErrorCode::kDelegationTokenAuthDisabled));
  protocol::DescribeDelegationTokenResponse resp;
  if (body.owners && body.owners->empty()) return out.send(resp);
  const std::string& me = request.context().principal;
  for (const auto& t : tokens->tokens()) {
    if (body.owners) {
      bool named = false;
      for (const auto& o : *body.owners)
        named = named || t.info.owner_or_renewer(o.principal_type + ":" + o.principal_name);
      if (!named) continue;
    }
    const bool eligible =
        t.info.owner_or_renewer(me) ||
        authorized(services_, request, AclOperation::kDescribe, ResourceType::kDelegationToken, t.info.token_id) ||
        authorized(services_, request, AclOperation::kDescribeTokens, ResourceType::kUser, t.info.owner);
    if (eligible) resp.tokens.push_back(described(t, request.api_version()));
  }
  out.send(resp);
}

protocol::DescribeDelegationTokenResponse DescribeDelegationTokenHandler::error_response(
    const protocol::DescribeDelegationTokenRequest&, ErrorCode error) {
  protocol::DescribeDelegationTokenResponse resp;
  resp.error_code = code(error);
  return resp;
}

}  // namespace skiff::api
