#include "security/acl/acl_index.h"

#include <algorithm>

namespace skiff::acl {
namespace {

bool implies_describe(AclOperation op) {
  using enum AclOperation;
  return op == kDescribe || op == kRead || op == kWrite || op == kDelete || op == kAlter;
}

// StandardAuthorizerData.findResult's operation test.
bool operation_matches(AclOperation acl_op, Permission permission, AclOperation asked) {
  if (acl_op == AclOperation::kAll || acl_op == asked) return true;
  if (permission != Permission::kAllow) return false;
  if (asked == AclOperation::kDescribe) return implies_describe(acl_op);
  if (asked == AclOperation::kDescribeConfigs) return acl_op == AclOperation::kAlterConfigs;
  return false;
}

bool principal_matches(std::string_view acl_principal, std::string_view principal) {
  return acl_principal == principal || acl_principal == kWildcardPrincipal;
}

bool host_matches(std::string_view acl_host, std::string_view host) {
  return acl_host == kWildcard || acl_host == host;
}

}  // namespace

AclIndex::AclIndex(std::vector<Acl> acls) : all_(std::move(acls)) {
  std::sort(all_.begin(), all_.end());
  all_.erase(std::unique(all_.begin(), all_.end()), all_.end());
  for (const auto& a : all_) {
    auto t = static_cast<size_t>(a.resource_type);
    if (t >= by_type_.size()) continue;
    auto& idx = by_type_[t];
    auto& bucket = a.pattern == PatternType::kPrefixed ? idx.prefixed : idx.literal;
    bucket[a.name].push_back(Entry{a.principal, a.host, a.operation, a.permission});
    if (a.pattern == PatternType::kPrefixed) idx.prefix_lengths.push_back(a.name.size());
  }
  for (auto& idx : by_type_) {
    std::sort(idx.prefix_lengths.begin(), idx.prefix_lengths.end());
    idx.prefix_lengths.erase(std::unique(idx.prefix_lengths.begin(), idx.prefix_lengths.end()),
                             idx.prefix_lengths.end());
  }
}

bool AclIndex::contains(const Acl& acl) const { return std::binary_search(all_.begin(), all_.end(), acl); }

void AclIndex::check(const std::vector<Entry>& entries, const Identity& who, AclOperation op, Scan& scan) {
  scan.has_acls = scan.has_acls || !entries.empty();
  for (const auto& e : entries) {
    if (!principal_matches(e.principal, who.principal) || !host_matches(e.host, who.host)) continue;
    if (!operation_matches(e.operation, e.permission, op)) continue;
    if (e.permission == Permission::kDeny) {
      scan.denied = true;
      return;
    }
    scan.allowed = true;
  }
}

Decision AclIndex::decide(const Identity& who, AclOperation op, ResourceType type, std::string_view name) const {
  auto t = static_cast<size_t>(type);
  if (t >= by_type_.size()) return Decision::kNoAcls;
  const auto& idx = by_type_[t];
  Scan scan;
  if (auto it = idx.literal.find(name); it != idx.literal.end()) check(it->second, who, op, scan);
  for (size_t len : idx.prefix_lengths) {
    if (scan.denied || len > name.size()) break;
    if (auto it = idx.prefixed.find(name.substr(0, len)); it != idx.prefixed.end()) check(it->second, who, op, scan);
  }
  if (!scan.denied && name != kWildcard)
    if (auto it = idx.literal.find(kWildcard); it != idx.literal.end()) check(it->second, who, op, scan);
  if (scan.denied) return Decision::kDenied;
  if (scan.allowed) return Decision::kAllowed;
  return scan.has_acls ? Decision::kDenied : Decision::kNoAcls;
}

// Authorizer.authorizeByResourceType's default body: an ALLOW (literal or
// prefixed) that no DENY of the same identity covers; a DENY on literal "*"
// denies the whole type.
bool AclIndex::allows_any(const Identity& who, AclOperation op, ResourceType type) const {
  std::vector<const Acl*> deny_literal, deny_prefix, allow_literal, allow_prefix;
  for (const auto& a : all_) {
    if (a.resource_type != type || !principal_matches(a.principal, who.principal) || !host_matches(a.host, who.host))
      continue;
    if (a.operation != op && a.operation != AclOperation::kAll) continue;
    bool literal = a.pattern == PatternType::kLiteral;
    if (a.permission == Permission::kDeny) {
      if (literal && a.name == kWildcard) return false;
      (literal ? deny_literal : deny_prefix).push_back(&a);
    } else {
      (literal ? allow_literal : allow_prefix).push_back(&a);
    }
  }
  auto denied_by_prefix = [&](std::string_view name) {
    return std::any_of(deny_prefix.begin(), deny_prefix.end(), [&](const Acl* d) { return name.starts_with(d->name); });
  };
  for (const Acl* a : allow_literal) {
    if (a->name == kWildcard) return true;
    bool denied = denied_by_prefix(a->name) || std::any_of(deny_literal.begin(), deny_literal.end(),
                                                           [&](const Acl* d) { return d->name == a->name; });
    if (!denied) return true;
  }
  for (const Acl* a : allow_prefix)
    if (!denied_by_prefix(a->name)) return true;
  return false;
}

}  // namespace skiff::acl
