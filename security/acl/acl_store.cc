#include "security/acl/acl_store.h"

#include <fmt/format.h>

#include <stdexcept>

#include "log/file_util.h"
#include "metadata/state_file.h"

namespace skiff::acl {
namespace {

constexpr std::string_view kMagic = "SKIFFACL";
constexpr int16_t kVersion = 1;

}  // namespace

std::string AclStore::encode(const std::vector<Acl>& acls) {
  std::string out = metadata::begin_state_file(kMagic, kVersion, static_cast<uint32_t>(acls.size()));
  for (const auto& a : acls) {
    out.push_back(static_cast<char>(a.resource_type));
    out.push_back(static_cast<char>(a.pattern));
    out.push_back(static_cast<char>(a.operation));
    out.push_back(static_cast<char>(a.permission));
    put_string_field(out, a.name);
    put_string_field(out, a.principal);
    put_string_field(out, a.host);
  }
  metadata::seal_state_file(out);
  return out;
}

std::vector<Acl> AclStore::decode(std::string_view bytes) {
  uint32_t count = 0;
  FieldReader in = metadata::open_state_file(bytes, kMagic, kVersion, "an ACL file", count);
  std::vector<Acl> acls;
  for (uint32_t i = 0; i < count; ++i) {
    Acl a;
    a.resource_type = resource_type_from_code(in.int8());
    a.pattern = pattern_type_from_code(in.int8());
    a.operation = operation_from_code(in.int8());
    a.permission = permission_from_code(in.int8());
    a.name = in.string();
    a.principal = in.string();
    a.host = in.string();
    if (validate_new_acl(a)) throw std::runtime_error(fmt::format("invalid ACL {}", acl_text(a)));
    acls.push_back(std::move(a));
  }
  if (!in.done()) throw std::runtime_error("bytes after the last ACL");
  return acls;
}

std::vector<Acl> AclStore::load() const {
  std::string bytes;
  std::error_code ec;
  if (!std::filesystem::exists(file_, ec)) return {};
  if (!storage::read_small_file(file_, bytes))
    throw std::runtime_error(fmt::format("cannot read the ACL file {}", file_.string()));
  try {
    return decode(bytes);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(fmt::format("the ACL file {} is corrupt: {}", file_.string(), e.what()));
  }
}

int AclStore::save(const std::vector<Acl>& acls) const { return storage::write_file_durably(file_, encode(acls)); }

}  // namespace skiff::acl
