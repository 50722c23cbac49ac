// DelegationTokenStore: Kafka's delegation tokens (KIP-48, KIP-373), as its
// controller's DelegationTokenControlManager decides them and its brokers'
// DelegationTokenManager and DelegationTokenCache serve them:
//   - a token is an id (a random Kafka Uuid) and its HMAC-SHA512 under
//     delegation.token.secret.key; the HMAC (base64) is the password a
//     client authenticates with over SCRAM with the "tokenauth" extension,
//     the id its user name; the session's principal is the token's owner;
//   - create: max = now + min(delegation.token.max.lifetime.ms, the asked
//     lifetime when > 0); expiry = min(max, now + delegation.token.expiry.time.ms);
//   - renew (owner or renewer; an expired token DELEGATION_TOKEN_EXPIRED
//     first, then the owner check): expiry = min(max, now + min(expiry time,
//     the asked period when > 0));
//   - expire (owner or renewer, then expired): a negative period removes it
//     at once, else expiry = min(max, now + period);
//   - a token past its expiry or max is removed by sweep(); maybe_sweep()
//     runs it when delegation.token.expiry.check.interval.ms has passed
//     since the last one (the token APIs call it first). An expired token is
//     never accepted for authentication, swept or not.
// Without a secret key (unset or empty) tokens are disabled: every call
// answers DELEGATION_TOKEN_AUTH_DISABLED and SCRAM refuses token logins.
//
// Durable in the "delegation-tokens" namespace of the metadata store (a
// secret namespace, 0600), the whole set rewritten crash-safely on every
// change, as Kafka keeps DelegationTokenRecords; a change is published only
// once stored. The HMAC is not stored: it is recomputed from the secret (so
// a new secret invalidates every token, as in Kafka). One record per token,
// version 1, integers big-endian:
//   token_id    int32 length, then UTF-8
//   owner       int32 length, then the principal ("User:alice")
//   requester   int32 length, then the principal
//   renewers    int32 count, then each as int32 length + principal
//   issue_ms    int64
//   max_ms      int64
//   expiry_ms   int64
//
// Thread rules: thread-safe. Reads (each token login, describe) take a
// shared lock; changes are serialised by their own mutex, write the file
// without blocking reads, then swap under the exclusive lock.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "common/expected.h"
#include "metadata/metadata_store.h"
#include "protocol/error_codes.h"
#include "security/sasl/scram.h"

namespace skiff::sasl {

struct DelegationTokenOptions {
  std::string secret;  // delegation.token.secret.key; empty: tokens disabled
  int64_t max_lifetime_ms = 604'800'000;
  int64_t expiry_time_ms = 86'400'000;
  int64_t check_interval_ms = 3'600'000;  // delegation.token.expiry.check.interval.ms
};

// A principal "Type:name" as Kafka's KafkaPrincipal splits it: the type
// before the first ':' ("User" when there is none).
struct PrincipalParts {
  std::string type;
  std::string name;
  std::string text() const { return type + ":" + name; }
};
PrincipalParts split_principal(const std::string& principal);

struct TokenInfo {
  std::string token_id;
  std::string owner;  // principals as "Type:name"
  std::string requester;
  std::vector<std::string> renewers;
  int64_t issue_ms = 0;
  int64_t max_ms = 0;
  int64_t expiry_ms = 0;

  // Kafka's TokenInformation.ownerOrRenewer: the owner, the requester or a renewer.
  bool owner_or_renewer(const std::string& principal) const;
  bool expired(int64_t now_ms) const { return max_ms < now_ms || expiry_ms < now_ms; }
  bool operator==(const TokenInfo&) const = default;
};

struct DelegationToken {
  TokenInfo info;
  std::string hmac;  // raw HMAC-SHA512 bytes
};

// What a SCRAM login with a token checks against.
struct TokenCredential {
  std::string owner_name;  // the owner principal's name: the session's user
  int64_t expiry_ms = 0;
  ScramCredential credential;
};

class DelegationTokenStore {
 public:
  // A null namespace keeps the tokens in memory only (tests).
  DelegationTokenStore(metadata::Namespace* ns, DelegationTokenOptions options);

  bool enabled() const { return !options_.secret.empty(); }
  // Reads the stored tokens. Throws metadata::Failure when the file cannot
  // be read or is corrupt.
  void load();

  Expected<DelegationToken, ErrorCode> create(const std::string& owner, const std::string& requester,
                                              std::vector<std::string> renewers, int64_t max_lifetime_ms,
                                              int64_t now_ms);
  // The new expiry timestamp.
  Expected<int64_t, ErrorCode> renew(const std::string& hmac, const std::string& principal, int64_t period_ms,
                                     int64_t now_ms);
  Expected<int64_t, ErrorCode> expire(const std::string& hmac, const std::string& principal, int64_t period_ms,
                                      int64_t now_ms);
  // Every token (with its HMAC), in id order.
  std::vector<DelegationToken> tokens() const;
  // Removes the tokens past their expiry or max; how many.
  size_t sweep(int64_t now_ms);
  // sweep() when the check interval has passed since the last one.
  void maybe_sweep(int64_t now_ms);
  // For a "tokenauth" SCRAM login: nullopt when tokens are disabled, the id
  // is unknown or the token has expired.
  std::optional<TokenCredential> credential(const std::string& token_id, ScramMechanism m, int64_t now_ms) const;

  static std::vector<std::string> encode(const std::map<std::string, TokenInfo>& tokens);
  static std::map<std::string, TokenInfo> decode(const std::vector<std::string>& records);

 private:
  struct Entry {
    TokenInfo info;
    std::string hmac;
    ScramCredential sha256, sha512;
  };
  using Map = std::map<std::string, Entry>;

  Entry entry_for(TokenInfo info) const;
  const Entry* by_hmac(const std::string& hmac) const;  // under a lock
  // Persists `next` and publishes it; false (nothing changed) on a failed write.
  bool commit(Map next);

  metadata::Namespace* ns_;
  DelegationTokenOptions options_;
  std::mutex write_mu_;
  int64_t last_sweep_ms_ = 0;  // guarded by write_mu_
  mutable std::shared_mutex mu_;
  Map tokens_;  // by id; guarded by mu_
};

}  // namespace skiff::sasl
