// S3 credentials: an access key id and secret (and an optional session
// token), given explicitly or else taken from the standard environment
// (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN). Values;
// resolve_credentials reads the environment (call it at start-up).
#pragma once

#include <optional>
#include <string>

namespace skiff::remote::s3 {

struct Credentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;  // empty: none (else sent as x-amz-security-token)
};

// The explicit pair when both are non-empty, else the environment's, else nullopt.
std::optional<Credentials> resolve_credentials(const std::string& access_key_id, const std::string& secret_access_key);

}  // namespace skiff::remote::s3
