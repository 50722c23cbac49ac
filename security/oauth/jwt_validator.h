// JwtValidator: Kafka's BrokerJwtValidator (as OAuthBearerValidatorCallback-
// Handler configures it: jose4j's JwtConsumer with "none" refused, exp and
// iat required, the expected audience and issuer, the clock skew) over a
// source of verification keys. validate() is what one SASL exchange asks; a
// token signed with a key id the source lacks asks the source to refresh
// (rate-limited there) and fails, as Kafka's. The failure reason goes to the
// broker's log; clients see only {"status":"invalid_token"}, as Kafka's.
// Thread rules: validate() is const and may run on any thread at once; the
// key source is thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "config/sasl_settings.h"
#include "security/oauth/jwks.h"

namespace skiff::oauth {

// Where the verification keys come from (a JWKS file or endpoint). Thread-safe.
class VerificationKeys {
 public:
  virtual ~VerificationKeys() = default;
  // The keys now (never null once started).
  virtual std::shared_ptr<const JwkSet> current() = 0;
  // No key fits a token with this key id: refresh soon, if allowed.
  virtual void missing_key(const std::string& kid) = 0;
  virtual std::string location() const = 0;
};

struct ValidatedToken {
  bool ok = false;
  std::string principal;
  int64_t expires_at_ms = 0;
  std::optional<int64_t> issued_at_ms;
  std::set<std::string> scope;
  std::string reason;  // !ok: why, for the broker's log
};

class JwtValidator {
 public:
  JwtValidator(config::OAuthBearerJwtOptions options, std::shared_ptr<VerificationKeys> keys);

  ValidatedToken validate(std::string_view token, int64_t now_ms) const;

 private:
  config::OAuthBearerJwtOptions options_;
  std::shared_ptr<VerificationKeys> keys_;
};

}  // namespace skiff::oauth
