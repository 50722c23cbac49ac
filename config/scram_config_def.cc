// The SASL configuration keys Skiff adds to Kafka's: scram.bootstrap.users,
// the SCRAM credentials created at startup when missing (the container's
// first admin user), in kafka-storage format --add-scram's form:
//   SCRAM-SHA-512=[name=admin,password=admin-secret];SCRAM-SHA-256=[name=alice,password=x,iterations=8192]
// A value may be quoted ("..."), as kafka-storage allows. The key is a
// password: errors name the part at fault, never its value.
#include <fmt/format.h>

#include <charconv>
#include <stdexcept>

#include "config/config_def.h"
#include "config/string_util.h"

namespace skiff::config {
namespace {

constexpr int32_t kMinIterations = 4096;   // Kafka's ScramMechanism minimum
constexpr int32_t kMaxIterations = 16384;  // Kafka's ScramControlManager maximum

std::string_view unquote(std::string_view v) {
  if (v.size() >= 2 && v.front() == '"' && v.back() == '"') return v.substr(1, v.size() - 2);
  return v;
}

int32_t parse_iterations(std::string_view v) {
  int32_t n = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || end != v.data() + v.size() || n < kMinIterations || n > kMaxIterations)
    throw std::invalid_argument(fmt::format("iterations must be a number in [{}, {}]", kMinIterations, kMaxIterations));
  return n;
}

// "name=...,password=...[,iterations=...]" into `u`.
void parse_components(std::string_view body, ScramBootstrapUser& u) {
  bool has_name = false, has_password = false;
  for (const auto& part : split_list(body)) {
    auto eq = part.find('=');
    if (eq == std::string::npos)
      throw std::invalid_argument(fmt::format("{}: every part in [...] must be key=value", u.mechanism));
    auto key = std::string_view(part).substr(0, eq);
    auto value = unquote(std::string_view(part).substr(eq + 1));
    if (key == "name") {
      u.name = value, has_name = true;
    } else if (key == "password") {
      u.password = value, has_password = true;
    } else if (key == "iterations") {
      u.iterations = parse_iterations(value);
    } else {
      throw std::invalid_argument(
          fmt::format("{}: unknown part '{}' (name, password and iterations are accepted)", u.mechanism, key));
    }
  }
  if (!has_name || u.name.empty()) throw std::invalid_argument(fmt::format("{}: 'name' is missing", u.mechanism));
  if (!has_password || u.password.empty())
    throw std::invalid_argument(fmt::format("{}: 'password' is missing for user '{}'", u.mechanism, u.name));
}

ScramBootstrapUser parse_one(std::string_view item) {
  auto eq = item.find('=');
  if (eq == std::string_view::npos)
    throw std::invalid_argument("expected MECHANISM=[name=...,password=...] entries separated by ';'");
  ScramBootstrapUser u;
  u.mechanism = std::string(trim(item.substr(0, eq)));
  if (u.mechanism != "SCRAM-SHA-256" && u.mechanism != "SCRAM-SHA-512")
    throw std::invalid_argument(fmt::format("unknown mechanism '{}' (SCRAM-SHA-256 or SCRAM-SHA-512)", u.mechanism));
  auto body = trim(item.substr(eq + 1));
  if (body.size() < 2 || body.front() != '[' || body.back() != ']')
    throw std::invalid_argument(fmt::format("{}: expected [name=...,password=...]", u.mechanism));
  parse_components(body.substr(1, body.size() - 2), u);
  return u;
}

}  // namespace

std::vector<ScramBootstrapUser> parse_scram_bootstrap_users(std::string_view value) {
  std::vector<ScramBootstrapUser> users;
  std::string_view rest = value;
  while (!rest.empty()) {
    auto end = rest.find(';');
    auto item = trim(rest.substr(0, end));
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    if (item.empty()) continue;
    users.push_back(parse_one(item));
    for (size_t i = 0; i + 1 < users.size(); ++i)
      if (users[i].name == users.back().name && users[i].mechanism == users.back().mechanism)
        throw std::invalid_argument(
            fmt::format("user '{}' is listed twice for {}", users.back().name, users.back().mechanism));
  }
  return users;
}

void add_scram_keys(std::vector<ConfigKeyDef>& d) {
  d.push_back({"scram.bootstrap.users", ConfigType::kPassword, "",
               "SCRAM credentials created at startup unless the user already has one for that mechanism (a "
               "password changed since through AlterUserScramCredentials is kept), in kafka-storage's --add-scram "
               "form, ';'-separated: SCRAM-SHA-512=[name=admin,password=admin-secret];"
               "SCRAM-SHA-256=[name=alice,password=x,iterations=8192]. Iterations default to 4096.",
               [](BrokerConfig& c, const std::string& v) { c.scram_bootstrap_users = parse_scram_bootstrap_users(v); },
               "empty or MECHANISM=[name=N,password=P[,iterations=I]][;...]"});
  // Delegation tokens (KIP-48): clients log in with them over SCRAM.
  d.push_back({"delegation.token.secret.key", ConfigType::kPassword, "",
               "Secret key to generate and verify delegation tokens (HMAC-SHA512 of the token id). If the key is not "
               "set or set to empty string, delegation token support is disabled.",
               [](BrokerConfig& c, const std::string& v) { c.delegation_token_secret_key = v; }, "any text"});
  d.push_back({"delegation.token.max.lifetime.ms", ConfigType::kLong, "604800000",
               "The token has a maximum lifetime beyond which it cannot be renewed anymore. Default value 7 days.",
               [](BrokerConfig& c, const std::string& v) {
                 c.delegation_token_max_lifetime_ms = parse_integer(v, 1, kLongMax);
               },
               "an integer in [1, 9223372036854775807]"});
  d.push_back(
      {"delegation.token.expiry.time.ms", ConfigType::kLong, "86400000",
       "The token validity time in milliseconds before the token needs to be renewed. Default value 1 day.",
       [](BrokerConfig& c, const std::string& v) { c.delegation_token_expiry_time_ms = parse_integer(v, 1, kLongMax); },
       "an integer in [1, 9223372036854775807]"});
  d.push_back({"delegation.token.expiry.check.interval.ms", ConfigType::kLong, "3600000",
               "Scan interval to remove expired delegation tokens (at the next token request after it; an expired "
               "token is never accepted meanwhile).",
               [](BrokerConfig& c, const std::string& v) {
                 c.delegation_token_expiry_check_interval_ms = parse_integer(v, 1, kLongMax);
               },
               "an integer in [1, 9223372036854775807]"});
}

}  // namespace skiff::config
