// One ACL (Kafka's AclBinding: a resource pattern and an access control
// entry), the filters DescribeAcls and DeleteAcls match with, and the checks
// Kafka makes before it stores an ACL (AclControlManager.validateNewAcl and
// AclApis). Values only; thread-safe.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "security/acl/authorized_operations.h"

namespace skiff::acl {

// org.apache.kafka.common.resource.PatternType codes.
enum class PatternType : int8_t { kUnknown = 0, kAny = 1, kMatch = 2, kLiteral = 3, kPrefixed = 4 };
// org.apache.kafka.common.acl.AclPermissionType codes.
enum class Permission : int8_t { kUnknown = 0, kAny = 1, kDeny = 2, kAllow = 3 };

// The resource name and principal that match every resource / principal.
inline constexpr std::string_view kWildcard = "*";
inline constexpr std::string_view kWildcardPrincipal = "User:*";

struct Acl {
  ResourceType resource_type = ResourceType::kUnknown;
  std::string name;
  PatternType pattern = PatternType::kLiteral;
  std::string principal;  // "User:alice"
  std::string host;       // "*" or an IP address
  AclOperation operation = AclOperation::kUnknown;
  Permission permission = Permission::kUnknown;

  auto operator<=>(const Acl&) const = default;
  bool operator==(const Acl&) const = default;
};

// AclBindingFilter: nullopt strings and the ANY codes match everything; the
// pattern type MATCH matches every pattern that applies to the named resource.
struct AclFilter {
  ResourceType resource_type = ResourceType::kAny;
  std::optional<std::string> name;
  PatternType pattern = PatternType::kAny;
  std::optional<std::string> principal;
  std::optional<std::string> host;
  AclOperation operation = AclOperation::kAny;
  Permission permission = Permission::kAny;

  bool matches(const Acl& acl) const;
  // A code Kafka does not know (its fromCode gives UNKNOWN): Kafka refuses to
  // parse such a request.
  bool has_unknown() const;
};

// Kafka's codes from the wire: a code Kafka does not know becomes kUnknown.
ResourceType resource_type_from_code(int8_t code);
PatternType pattern_type_from_code(int8_t code);
AclOperation operation_from_code(int8_t code);
Permission permission_from_code(int8_t code);

// Kafka's enum names, as its messages print them ("TOPIC", "PREFIXED", ...).
std::string_view name_of(ResourceType t);
std::string_view name_of(PatternType t);
std::string_view name_of(AclOperation op);
std::string_view name_of(Permission p);

// An ACL with a code Kafka does not know (the request is refused whole).
bool has_unknown(const Acl& acl);
// Why Kafka refuses to create this ACL (INVALID_REQUEST), or nullopt.
std::optional<std::string> validate_new_acl(const Acl& acl);

// "(principal=User:a, host=*, operation=READ, permissionType=ALLOW) on TOPIC:LITERAL:t", for log lines.
std::string acl_text(const Acl& acl);

}  // namespace skiff::acl
