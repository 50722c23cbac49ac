#include "api/handlers/describe_acls_handler.h"

#include <map>
#include <tuple>

#include "api/authorize.h"
#include "api/handlers/acl_wire.h"

namespace skiff::api {

void DescribeAclsHandler::handle(ApiRequest& request, protocol::DescribeAclsRequest& body, Responder& out) {
  auto filter = acl_filter_from_wire(body);
  if (!authorized_cluster(services_, request, AclOperation::kDescribe)) {
    out.send(error_response(body, ErrorCode::kClusterAuthorizationFailed));
    return;
  }
  if (!services_.authorizer) {
    auto resp = error_response(body, ErrorCode::kSecurityDisabled);
    resp.error_message = "No Authorizer is configured on the broker";
    out.send(resp);
    return;
  }
  protocol::DescribeAclsResponse resp;
  // DescribeAclsResponse.aclsResources: one entry per resource pattern.
  std::map<std::tuple<ResourceType, std::string, acl::PatternType>, size_t> by_pattern;
  for (const auto& a : services_.authorizer->describe(filter)) {
    auto [it, fresh] = by_pattern.try_emplace({a.resource_type, a.name, a.pattern}, resp.resources.size());
    if (fresh) {
      auto& r = resp.resources.emplace_back();
      r.resource_type = static_cast<int8_t>(a.resource_type);
      r.resource_name = a.name;
      r.pattern_type = static_cast<int8_t>(a.pattern);
    }
    acl_entry_to_wire(a, resp.resources[it->second].acls.emplace_back());
  }
  out.send(resp);
}

protocol::DescribeAclsResponse DescribeAclsHandler::error_response(const protocol::DescribeAclsRequest&,
                                                                   ErrorCode error) {
  protocol::DescribeAclsResponse resp;
  resp.error_code = code(error);
  resp.error_message = std::nullopt;
  return resp;
}

}  // namespace skiff::api
