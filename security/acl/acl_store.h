// AclStore: the ACLs on disk, the "acls" namespace of the metadata store
// (metadata/metadata_store.h), replaced whole on every change, crash-safely
// (after a crash the store holds either the ACLs before the change or after
// it, never a mix). A change is acknowledged only after that.
//
// One record per ACL, version 1 (integers big-endian):
//   resource_type int8, pattern_type int8, operation int8, permission int8
//                 (Kafka's codes: ResourceType, PatternType, AclOperation, AclPermissionType)
//   name          int32 length, then UTF-8 bytes
//   principal     int32 length, then UTF-8 bytes
//   host          int32 length, then UTF-8 bytes
// A record that does not match this (a short read, a code Kafka does not
// know) is corruption: load() throws, and the broker refuses to start rather
// than enforce a partial set of ACLs.
// Thread rules: not synchronised; the Authorizer calls it under its writer lock.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "metadata/metadata_store.h"
#include "security/acl/acl.h"

namespace skiff::acl {

class AclStore {
 public:
  explicit AclStore(metadata::Namespace& ns) : ns_(ns) {}

  const std::filesystem::path& file() const { return ns_.file(); }
  // The stored ACLs (none when there are none yet). Throws metadata::Failure
  // naming the file when it is corrupt.
  std::vector<Acl> load() const;
  // Replaces the stored ACLs durably. Returns 0 or an errno value.
  int save(const std::vector<Acl>& acls) const;

  // One ACL's record, and back (throws std::runtime_error).
  static std::string encode(const Acl& acl);
  static Acl decode(std::string_view record);

 private:
  metadata::Namespace& ns_;
};

}  // namespace skiff::acl
