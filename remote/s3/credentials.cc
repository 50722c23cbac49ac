#include "remote/s3/credentials.h"

#include <cstdlib>

namespace skiff::remote::s3 {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? std::string() : std::string(v);
}

}  // namespace

std::optional<Credentials> resolve_credentials(const std::string& access_key_id, const std::string& secret_access_key) {
  if (!access_key_id.empty() && !secret_access_key.empty()) return Credentials{access_key_id, secret_access_key, ""};
  Credentials c{env("AWS_ACCESS_KEY_ID"), env("AWS_SECRET_ACCESS_KEY"), env("AWS_SESSION_TOKEN")};
  if (c.access_key_id.empty() || c.secret_access_key.empty()) return std::nullopt;
  return c;
}

}  // namespace skiff::remote::s3
