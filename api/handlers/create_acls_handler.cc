#include "api/handlers/create_acls_handler.h"

#include "api/authorize.h"
#include "protocol/errors.h"

namespace skiff::api {
namespace {

acl::Acl from_wire(const protocol::CreateAclsRequest::AclCreation& c) {
  acl::Acl a;
  a.resource_type = acl::resource_type_from_code(c.resource_type);
  a.name = c.resource_name;
  a.pattern = acl::pattern_type_from_code(c.resource_pattern_type);
  a.principal = c.principal;
  a.host = c.host;
  a.operation = acl::operation_from_code(c.operation);
  a.permission = acl::permission_from_code(c.permission_type);
  if (acl::has_unknown(a)) throw protocol::DecodeError("CreatableAcls contain unknown elements");
  return a;
}

}  // namespace

void CreateAclsHandler::handle(ApiRequest& request, protocol::CreateAclsRequest& body, Responder& out) {
  std::vector<acl::Acl> acls;
  for (const auto& c : body.creations) acls.push_back(from_wire(c));
  if (!authorized_cluster(services_, request, AclOperation::kAlter)) {
    out.send(error_response(body, ErrorCode::kClusterAuthorizationFailed));
    return;
  }
  if (!services_.authorizer) {
    auto resp = error_response(body, ErrorCode::kSecurityDisabled);
    for (auto& r : resp.results) r.error_message = "No Authorizer is configured.";
    out.send(resp);
    return;
  }
  protocol::CreateAclsResponse resp;
  for (auto& result : services_.authorizer->create(acls)) {
    auto& r = resp.results.emplace_back();
    r.error_code = code(result.error);
    if (result.error != ErrorCode::kNone) r.error_message = std::move(result.message);
  }
  out.send(resp);
}

// Kafka's CreateAclsRequest.getErrorResponse: the error's default message.
protocol::CreateAclsResponse CreateAclsHandler::error_response(const protocol::CreateAclsRequest& body,
                                                               ErrorCode error) {
  protocol::CreateAclsResponse resp;
  for (size_t i = 0; i < body.creations.size(); ++i) {
    auto& r = resp.results.emplace_back();
    r.error_code = code(error);
    r.error_message = std::nullopt;
  }
  return resp;
}

}  // namespace skiff::api
