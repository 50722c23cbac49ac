// Authorizer: Skiff's StandardAuthorizer. Decides whether a principal from a
// host may perform an operation on a resource, and keeps the ACLs
// (CreateAcls, DescribeAcls, DeleteAcls) durable in an AclStore.
//
// Decision order, as Kafka's StandardAuthorizer: a super user (super.users,
// "User:alice;User:bob") may do anything; else the ACLs decide (AclIndex);
// where no ACL names the resource at all, allow.everyone.if.no.acl.found.
//
// Threads: every method may be called from any thread at once. Checks read an
// immutable AclIndex through an atomic shared_ptr, so they never wait for each
// other nor for a change; changes are serialised by a mutex, written to disk,
// then published by swapping the pointer.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "protocol/error_codes.h"
#include "security/acl/acl.h"
#include "security/acl/acl_index.h"
#include "security/acl/acl_store.h"

namespace skiff::acl {

struct AuthorizerConfig {
  std::vector<std::string> super_users;  // "User:alice"
  bool allow_everyone_if_no_acl_found = false;
  metadata::Namespace* acls = nullptr;  // the AclStore's namespace (required)
};

// The outcome of one creation, or of one deletion filter.
struct AclResult {
  ErrorCode error = ErrorCode::kNone;
  std::optional<std::string> message;
  std::vector<Acl> deleted;  // DeleteAcls: the ACLs the filter removed
};

class Authorizer {
 public:
  // Loads the stored ACLs; throws metadata::Failure if they are corrupt.
  explicit Authorizer(AuthorizerConfig config);

  bool authorize(const Identity& who, AclOperation op, ResourceType type, std::string_view name) const;
  // Authorizer.authorizeByResourceType: may `who` do `op` on some resource of `type`?
  bool authorize_any(const Identity& who, AclOperation op, ResourceType type) const;
  // The authorized-operations bitfield of one resource: each supported operation checked.
  int32_t authorized_operations(const Identity& who, ResourceType type, std::string_view name) const;

  // One result per ACL, in order. Invalid ACLs get INVALID_REQUEST; an ACL
  // already present succeeds without a change.
  std::vector<AclResult> create(const std::vector<Acl>& acls);
  // One result per filter, in order, each with the ACLs it removed.
  std::vector<AclResult> remove(const std::vector<AclFilter>& filters);
  std::vector<Acl> describe(const AclFilter& filter) const;

  bool is_super_user(std::string_view principal) const;

 private:
  std::shared_ptr<const AclIndex> snapshot() const { return index_.load(std::memory_order_acquire); }
  // Stores `acls` and publishes them; returns 0 or errno. Under write_mu_.
  int replace(std::vector<Acl> acls);

  std::unordered_set<std::string> super_users_;
  bool allow_if_no_acls_;
  AclStore store_;
  std::mutex write_mu_;
  std::atomic<std::shared_ptr<const AclIndex>> index_;
};

}  // namespace skiff::acl
