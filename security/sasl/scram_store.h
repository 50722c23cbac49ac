// ScramCredentialStore: the SCRAM credentials, (user, mechanism) ->
// ScramCredential, kept in memory for the SASL exchanges and on disk in one
// small file in the first log dir ("skiff-scram-credentials"), replaced whole
// on every change (storage::write_file_durably: temporary file, fsync,
// rename, directory fsync; the file is owner-only, 0600), so after a crash the file holds the credentials
// before a change or after it, never a mix. A change is published in memory
// only after the file is written; a failed write changes nothing.
//
// Byte layout (integers big-endian):
//   magic    8 bytes  "SKIFFSCR"
//   version  int16    1
//   count    int32    number of credentials
//   count times:
//     user        int32 length, then UTF-8 bytes (not empty)
//     mechanism   int8   Kafka's code: 1 SCRAM-SHA-256, 2 SCRAM-SHA-512
//     iterations  int32  in [4096, 16384]
//     salt        int32 length, then bytes (not empty)
//     stored_key  int32 length, then bytes (the mechanism's digest size)
//     server_key  int32 length, then bytes (the mechanism's digest size)
//   crc      uint32   CRC-32C of every byte before it
// A file that does not match this (bad CRC, short read, unknown mechanism, a
// (user, mechanism) twice) is corruption: load() throws, and the broker
// refuses to start rather than authenticate against a partial set.
//
// Thread rules: thread-safe. Lookups (every SCRAM exchange) take a shared
// lock; apply() is serialised by its own mutex, builds the new map and writes
// the file without blocking lookups, then swaps it in under the exclusive lock.
#pragma once

#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <utility>
#include <vector>

#include "security/sasl/scram.h"

namespace skiff::sasl {

// One credential's public part, as DescribeUserScramCredentials shows it.
struct ScramCredentialInfo {
  ScramMechanism mechanism;
  int32_t iterations;
};

// One change of apply(): an upsert (credential set) or a deletion (nullopt).
struct ScramCredentialChange {
  std::string user;
  ScramMechanism mechanism;
  std::optional<ScramCredential> credential;
};

class ScramCredentialStore {
 public:
  using Key = std::pair<std::string, ScramMechanism>;
  using Map = std::map<Key, ScramCredential>;

  // An empty path keeps the credentials in memory only (tests).
  explicit ScramCredentialStore(std::filesystem::path file) : file_(std::move(file)) {}

  const std::filesystem::path& file() const { return file_; }
  // Reads the file (none: no credentials). Throws std::runtime_error naming
  // the file when it cannot be read or is corrupt.
  void load();

  std::optional<ScramCredential> lookup(std::string_view user, ScramMechanism m) const;
  // Every user with at least one credential, or only those of `users` that
  // have one; each user's credentials in mechanism order.
  std::map<std::string, std::vector<ScramCredentialInfo>> describe(
      const std::optional<std::vector<std::string>>& users = std::nullopt) const;
  // Applies every change or none: persisted first, then published. Deleting
  // a missing credential is a no-op. Returns 0 or the errno of the failed write.
  int apply(const std::vector<ScramCredentialChange>& changes);

  // The file's bytes for `credentials`, and back (throws std::runtime_error).
  static std::string encode(const Map& credentials);
  static Map decode(std::string_view bytes);

 private:
  std::filesystem::path file_;
  std::mutex write_mu_;  // one apply() at a time
  mutable std::shared_mutex mu_;
  Map credentials_;  // guarded by mu_
};

}  // namespace skiff::sasl
