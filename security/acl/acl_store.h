// AclStore: the ACLs on disk, one small file in the first log dir
// ("skiff-acls"), replaced whole on every change: written to a temporary file,
// fsynced, renamed over the old one, and the directory fsynced
// (storage::write_file_durably), so after a crash the file holds either the
// ACLs before the change or after it, never a mix. A change is acknowledged
// only after that.
//
// Byte layout (integers big-endian):
//   magic    8 bytes  "SKIFFACL"
//   version  int16    1
//   count    int32    number of ACLs
//   count times:
//     resource_type int8, pattern_type int8, operation int8, permission int8
//                   (Kafka's codes: ResourceType, PatternType, AclOperation, AclPermissionType)
//     name          int32 length, then UTF-8 bytes
//     principal     int32 length, then UTF-8 bytes
//     host          int32 length, then UTF-8 bytes
//   crc      uint32   CRC-32C of every byte before it
// A file that does not match this (a bad CRC, a short read, a code Kafka does
// not know) is corruption: load() throws, and the broker refuses to start
// rather than enforce a partial set of ACLs.
// Thread rules: not synchronised; the Authorizer calls it under its writer lock.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "security/acl/acl.h"

namespace skiff::acl {

class AclStore {
 public:
  explicit AclStore(std::filesystem::path file) : file_(std::move(file)) {}

  const std::filesystem::path& file() const { return file_; }
  // The stored ACLs (none when the file does not exist). Throws
  // std::runtime_error naming the file when it is corrupt.
  std::vector<Acl> load() const;
  // Replaces the stored ACLs durably. Returns 0 or an errno value.
  int save(const std::vector<Acl>& acls) const;

  // The file's bytes for `acls`, and back (throws std::runtime_error).
  static std::string encode(const std::vector<Acl>& acls);
  static std::vector<Acl> decode(std::string_view bytes);

 private:
  std::filesystem::path file_;
};

}  // namespace skiff::acl
