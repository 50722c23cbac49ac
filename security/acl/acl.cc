#include "security/acl/acl.h"

#include <fmt/format.h>

#include <array>

namespace skiff::acl {
namespace {

constexpr std::array<std::string_view, kResourceTypeCount> kResourceNames = {
    "UNKNOWN", "ANY", "TOPIC", "GROUP", "CLUSTER", "TRANSACTIONAL_ID", "DELEGATION_TOKEN", "USER"};
constexpr std::array<std::string_view, 5> kPatternNames = {"UNKNOWN", "ANY", "MATCH", "LITERAL", "PREFIXED"};
constexpr std::array<std::string_view, kAclOperationCount> kOperationNames = {"UNKNOWN",
                                                                              "ANY",
                                                                              "ALL",
                                                                              "READ",
                                                                              "WRITE",
                                                                              "CREATE",
                                                                              "DELETE",
                                                                              "ALTER",
                                                                              "DESCRIBE",
                                                                              "CLUSTER_ACTION",
                                                                              "DESCRIBE_CONFIGS",
                                                                              "ALTER_CONFIGS",
                                                                              "IDEMPOTENT_WRITE",
                                                                              "CREATE_TOKENS",
                                                                              "DESCRIBE_TOKENS",
                                                                              "TWO_PHASE_COMMIT"};
constexpr std::array<std::string_view, 4> kPermissionNames = {"UNKNOWN", "ANY", "DENY", "ALLOW"};

template <class E, size_t N>
E from_code(int8_t code) {
  return code > 0 && static_cast<size_t>(code) < N ? static_cast<E>(code) : static_cast<E>(0);
}

template <size_t N>
std::string_view lookup(const std::array<std::string_view, N>& names, int8_t code) {
  return code >= 0 && static_cast<size_t>(code) < N ? names[code] : names[0];
}

// ResourcePatternFilter.matches.
bool pattern_matches(const AclFilter& f, const Acl& acl) {
  if (f.resource_type != ResourceType::kAny && f.resource_type != acl.resource_type) return false;
  if (f.pattern != PatternType::kAny && f.pattern != PatternType::kMatch && f.pattern != acl.pattern) return false;
  if (!f.name) return true;
  if (f.pattern == PatternType::kAny || f.pattern == acl.pattern) return *f.name == acl.name;
  if (acl.pattern == PatternType::kLiteral) return *f.name == acl.name || acl.name == kWildcard;
  return acl.pattern == PatternType::kPrefixed && f.name->starts_with(acl.name);
}

}  // namespace

ResourceType resource_type_from_code(int8_t code) { return from_code<ResourceType, kResourceTypeCount>(code); }
PatternType pattern_type_from_code(int8_t code) { return from_code<PatternType, kPatternNames.size()>(code); }
AclOperation operation_from_code(int8_t code) { return from_code<AclOperation, kAclOperationCount>(code); }
Permission permission_from_code(int8_t code) { return from_code<Permission, kPermissionNames.size()>(code); }

std::string_view name_of(ResourceType t) { return lookup(kResourceNames, static_cast<int8_t>(t)); }
std::string_view name_of(PatternType t) { return lookup(kPatternNames, static_cast<int8_t>(t)); }
std::string_view name_of(AclOperation op) { return lookup(kOperationNames, static_cast<int8_t>(op)); }
std::string_view name_of(Permission p) { return lookup(kPermissionNames, static_cast<int8_t>(p)); }

bool AclFilter::matches(const Acl& acl) const {
  if (!pattern_matches(*this, acl)) return false;
  // AccessControlEntryFilter.matches.
  if (principal && *principal != acl.principal) return false;
  if (host && *host != acl.host) return false;
  if (operation != AclOperation::kAny && operation != acl.operation) return false;
  return permission == Permission::kAny || permission == acl.permission;
}

bool AclFilter::has_unknown() const {
  return resource_type == ResourceType::kUnknown || pattern == PatternType::kUnknown ||
         operation == AclOperation::kUnknown || permission == Permission::kUnknown;
}

bool has_unknown(const Acl& acl) {
  return acl.resource_type == ResourceType::kUnknown || acl.pattern == PatternType::kUnknown ||
         acl.operation == AclOperation::kUnknown || acl.permission == Permission::kUnknown;
}

// AclApis.handleCreateAcls, then AclControlManager.validateNewAcl, in their order.
std::optional<std::string> validate_new_acl(const Acl& acl) {
  if (acl.resource_type == ResourceType::kCluster && acl.name != kClusterResourceName)
    return fmt::format("The only valid name for the CLUSTER resource is {}", kClusterResourceName);
  if (acl.name.empty()) return "Invalid empty resource name";
  if (acl.resource_type < ResourceType::kTopic || acl.resource_type > ResourceType::kUser)
    return fmt::format("Invalid resourceType {}", name_of(acl.resource_type));
  if (acl.pattern != PatternType::kLiteral && acl.pattern != PatternType::kPrefixed)
    return fmt::format("Invalid patternType {}", name_of(acl.pattern));
  if (acl.operation == AclOperation::kUnknown || acl.operation == AclOperation::kAny)
    return fmt::format("Invalid operation {}", name_of(acl.operation));
  if (acl.permission != Permission::kAllow && acl.permission != Permission::kDeny)
    return fmt::format("Invalid permissionType {}", name_of(acl.permission));
  if (acl.principal.find(':') == std::string::npos)
    return fmt::format(
        "Could not parse principal from `{}` (no colon is present separating the principal type from the principal "
        "name)",
        acl.principal);
  if (acl.host.empty()) return "Host pattern cannot be null or empty";
  // Kafka 4.4 also takes CIDR host patterns (a.b.c.d/n); Skiff matches "*"
  // and exact addresses only, so it refuses a pattern it would not enforce.
  if (acl.host.find('/') != std::string::npos)
    return fmt::format("CIDR host pattern '{}' is not supported by this broker", acl.host);
  return std::nullopt;
}

std::string acl_text(const Acl& acl) {
  return fmt::format("(principal={}, host={}, operation={}, permissionType={}) on {}:{}:{}", acl.principal, acl.host,
                     name_of(acl.operation), name_of(acl.permission), name_of(acl.resource_type), name_of(acl.pattern),
                     acl.name);
}

}  // namespace skiff::acl
