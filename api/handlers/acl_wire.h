// Between the ACL APIs' wire fields and security/acl's values: shared by the
// DescribeAcls, CreateAcls and DeleteAcls handlers. Pure functions.
#pragma once

#include "protocol/errors.h"
#include "security/acl/acl.h"

namespace skiff::api {

// DescribeAclsRequest and DeleteAclsFilter carry the same filter fields.
// Throws DecodeError for a code Kafka does not know, as Kafka refuses to
// parse such a request ("contains UNKNOWN elements").
template <class Wire>
acl::AclFilter acl_filter_from_wire(const Wire& w) {
  acl::AclFilter f;
  f.resource_type = acl::resource_type_from_code(w.resource_type_filter);
  f.name = w.resource_name_filter;
  f.pattern = acl::pattern_type_from_code(w.pattern_type_filter);
  f.principal = w.principal_filter;
  f.host = w.host_filter;
  f.operation = acl::operation_from_code(w.operation);
  f.permission = acl::permission_from_code(w.permission_type);
  if (f.has_unknown()) throw protocol::DecodeError("ACL filter contains UNKNOWN elements");
  return f;
}

// The ACL fields of DescribeAcls' AclDescription and DeleteAcls' matching ACL.
template <class Wire>
void acl_entry_to_wire(const acl::Acl& a, Wire& w) {
  w.principal = a.principal;
  w.host = a.host;
  w.operation = static_cast<int8_t>(a.operation);
  w.permission_type = static_cast<int8_t>(a.permission);
}

}  // namespace skiff::api
