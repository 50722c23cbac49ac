#include "security/acl/acl_store.h"

#include <fmt/format.h>

#include <stdexcept>

#include "common/file_fields.h"

namespace skiff::acl {

std::string AclStore::encode(const Acl& a) {
  std::string out;
  out.push_back(static_cast<char>(a.resource_type));
  out.push_back(static_cast<char>(a.pattern));
  out.push_back(static_cast<char>(a.operation));
  out.push_back(static_cast<char>(a.permission));
  put_string_field(out, a.name);
  put_string_field(out, a.principal);
  put_string_field(out, a.host);
  return out;
}

Acl AclStore::decode(std::string_view record) {
  FieldReader in(record);
  Acl a;
  a.resource_type = resource_type_from_code(in.int8());
  a.pattern = pattern_type_from_code(in.int8());
  a.operation = operation_from_code(in.int8());
  a.permission = permission_from_code(in.int8());
  a.name = in.string();
  a.principal = in.string();
  a.host = in.string();
  if (!in.done()) throw std::runtime_error("bytes after an ACL");
  if (validate_new_acl(a)) throw std::runtime_error(fmt::format("invalid ACL {}", acl_text(a)));
  return a;
}

std::vector<Acl> AclStore::load() const {
  return ns_.load([](const std::vector<std::string>& records) {
    std::vector<Acl> acls;
    acls.reserve(records.size());
    for (const auto& record : records) acls.push_back(decode(record));
    return acls;
  });
}

int AclStore::save(const std::vector<Acl>& acls) const {
  std::vector<std::string> records;
  records.reserve(acls.size());
  for (const auto& a : acls) records.push_back(encode(a));
  auto r = ns_.write(records);
  return r ? 0 : metadata::error_number(r.error());
}

}  // namespace skiff::acl
