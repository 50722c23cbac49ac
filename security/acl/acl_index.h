// AclIndex: an immutable set of ACLs, indexed for the check every request
// makes. Built once per change (Authorizer swaps the whole index), never
// changed after: any number of threads may read one at the same time.
//
// The check follows Kafka's StandardAuthorizerData.findAclRule: the ACLs of
// the resource's type whose pattern covers the name (LITERAL equal to it,
// LITERAL "*", PREFIXED a prefix of it), restricted to the principal (or
// "User:*") and host (or "*"). A matching DENY wins; else a matching ALLOW
// allows; else, when no ACL at all names the resource, the caller's
// "no ACL" default applies; else denied. ALLOW on READ, WRITE, DELETE or
// ALTER implies DESCRIBE, ALLOW on ALTER_CONFIGS implies DESCRIBE_CONFIGS;
// ALL matches every operation.
//
// Cost of a check: two hash lookups for the literal name and "*", plus one
// per distinct length of the PREFIXED names of that resource type that is
// not longer than the name (bounded by the name's length, 249 for topics).
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "security/acl/acl.h"

namespace skiff::acl {

enum class Decision { kAllowed, kDenied, kNoAcls };

struct Identity {
  std::string_view principal;  // "User:alice"
  std::string_view host;       // the client's IP address, as text
};

class AclIndex {
 public:
  AclIndex() = default;
  // Duplicates are dropped; all() is sorted.
  explicit AclIndex(std::vector<Acl> acls);

  const std::vector<Acl>& all() const { return all_; }
  bool contains(const Acl& acl) const;

  Decision decide(const Identity& who, AclOperation op, ResourceType type, std::string_view name) const;
  // Kafka's Authorizer.authorizeByResourceType: does some ALLOW let `who` do
  // `op` on at least one resource of `type` that no DENY of theirs covers?
  bool allows_any(const Identity& who, AclOperation op, ResourceType type) const;

 private:
  struct Entry {
    std::string principal;
    std::string host;
    AclOperation operation;
    Permission permission;
  };
  struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  using Bucket = std::unordered_map<std::string, std::vector<Entry>, StringHash, std::equal_to<>>;
  struct TypeIndex {
    Bucket literal;                      // by name, "*" included
    Bucket prefixed;                     // by prefix
    std::vector<size_t> prefix_lengths;  // distinct lengths of the keys of `prefixed`, ascending
  };
  struct Scan {
    bool has_acls = false;
    bool allowed = false;
    bool denied = false;
  };
  static void check(const std::vector<Entry>& entries, const Identity& who, AclOperation op, Scan& scan);

  std::vector<Acl> all_;
  std::array<TypeIndex, kResourceTypeCount> by_type_;
};

}  // namespace skiff::acl
