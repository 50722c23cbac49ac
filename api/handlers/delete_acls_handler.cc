#include "api/handlers/delete_acls_handler.h"

#include "api/authorize.h"
#include "api/handlers/acl_wire.h"

namespace skiff::api {

void DeleteAclsHandler::handle(ApiRequest& request, protocol::DeleteAclsRequest& body, Responder& out) {
  std::vector<acl::AclFilter> filters;
  for (const auto& f : body.filters) filters.push_back(acl_filter_from_wire(f));
  if (!authorized_cluster(services_, request, AclOperation::kAlter)) {
    out.send(error_response(body, ErrorCode::kClusterAuthorizationFailed));
    return;
  }
  if (!services_.authorizer) {
    auto resp = error_response(body, ErrorCode::kSecurityDisabled);
    for (auto& r : resp.filter_results) r.error_message = "No Authorizer is configured.";
    out.send(resp);
    return;
  }
  protocol::DeleteAclsResponse resp;
  for (auto& result : services_.authorizer->remove(filters)) {
    auto& r = resp.filter_results.emplace_back();
    r.error_code = code(result.error);
    r.error_message = std::move(result.message);
    for (const auto& a : result.deleted) {
      auto& m = r.matching_acls.emplace_back();
      m.error_message = std::nullopt;
      m.resource_type = static_cast<int8_t>(a.resource_type);
      m.resource_name = a.name;
      m.pattern_type = static_cast<int8_t>(a.pattern);
      acl_entry_to_wire(a, m);
    }
  }
  out.send(resp);
}

protocol::DeleteAclsResponse DeleteAclsHandler::error_response(const protocol::DeleteAclsRequest& body,
                                                               ErrorCode error) {
  protocol::DeleteAclsResponse resp;
  for (size_t i = 0; i < body.filters.size(); ++i) {
    auto& r = resp.filter_results.emplace_back();
    r.error_code = code(error);
    r.error_message = std::nullopt;
  }
  return resp;
}

}  // namespace skiff::api
