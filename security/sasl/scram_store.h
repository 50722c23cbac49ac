// ScramCredentialStore: the SCRAM credentials, (user, mechanism) ->
// ScramCredential, kept in memory for the SASL exchanges and on disk in the
// "scram-credentials" namespace of the metadata store
// (metadata/metadata_store.h; a secret namespace: its file is owner-only,
// 0600), replaced whole on every change, crash-safely, so after a crash the
// store holds the credentials before a change or after it, never a mix. A
// change is published in memory only after it is stored; a failed write
// changes nothing.
//
// One record per credential, version 1 (integers big-endian):
//   user        int32 length, then UTF-8 bytes (not empty)
//   mechanism   int8   Kafka's code: 1 SCRAM-SHA-256, 2 SCRAM-SHA-512
//   iterations  int32  in [4096, 16384]
//   salt        int32 length, then bytes (not empty)
//   stored_key  int32 length, then bytes (the mechanism's digest size)
//   server_key  int32 length, then bytes (the mechanism's digest size)
// A record that does not match this (short read, unknown mechanism, a
// (user, mechanism) twice) is corruption: load() throws, and the broker
// refuses to start rather than authenticate against a partial set.
//
// Thread rules: thread-safe. Lookups (every SCRAM exchange) take a shared
// lock; apply() is serialised by its own mutex, builds the new map and writes
// it without blocking lookups, then swaps it in under the exclusive lock.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <utility>
#include <vector>

#include "metadata/metadata_store.h"
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

  // A null namespace keeps the credentials in memory only (tests).
  explicit ScramCredentialStore(metadata::Namespace* ns) : ns_(ns) {}

  // Where they are kept, for messages ("memory" without a namespace).
  std::string where() const { return ns_ ? ns_->file().string() : "memory"; }
  // Reads the stored credentials (none yet: no credentials). Throws
  // metadata::Failure naming the file when it cannot be read or is corrupt.
  void load();

  std::optional<ScramCredential> lookup(std::string_view user, ScramMechanism m) const;
  // Every user with at least one credential, or only those of `users` that
  // have one; each user's credentials in mechanism order.
  std::map<std::string, std::vector<ScramCredentialInfo>> describe(
      const std::optional<std::vector<std::string>>& users = std::nullopt) const;
  // Applies every change or none: persisted first, then published. Deleting
  // a missing credential is a no-op. Returns 0 or the errno of the failed write.
  int apply(const std::vector<ScramCredentialChange>& changes);

  // The records of `credentials`, and back (throws std::runtime_error).
  static std::vector<std::string> encode(const Map& credentials);
  static Map decode(const std::vector<std::string>& records);

 private:
  metadata::Namespace* ns_;
  std::mutex write_mu_;  // one apply() at a time
  mutable std::shared_mutex mu_;
  Map credentials_;  // guarded by mu_
};

}  // namespace skiff::sasl
