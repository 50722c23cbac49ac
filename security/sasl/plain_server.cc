#include "security/sasl/plain_server.h"

#include <fmt/format.h>

#include <vector>

#include "config/jaas.h"
#include "security/sasl/scram.h"

namespace skiff::sasl {
namespace {

constexpr std::string_view kUserPrefix = "user_";

class PlainServer : public SaslServer {
 public:
  explicit PlainServer(std::shared_ptr<const PlainUsers> users) : users_(std::move(users)) {}

  SaslStep step(std::string_view token) override {
    std::vector<std::string_view> parts;
    size_t start = 0;
    for (size_t i = 0; i <= token.size(); ++i) {
      if (i == token.size() || token[i] == '\0') {
        parts.push_back(token.substr(start, i - start));
        start = i + 1;
      }
    }
    if (parts.size() != 3)
      return SaslStep::failed(fmt::format("Invalid SASL/PLAIN response: expected 3 tokens, got {}", parts.size()));
    const auto authzid = parts[0], user = parts[1], password = parts[2];
    if (user.empty()) return SaslStep::failed("Authentication failed: username not specified");
    if (password.empty()) return SaslStep::failed("Authentication failed: password not specified");
    auto it = users_->find(std::string(user));
    // Unknown user or wrong password: one answer, so names cannot be probed.
    if (it == users_->end() || !constant_time_equal(it->second, password))
      return SaslStep::failed("Authentication failed: Invalid username or password", fmt::format("user '{}'", user));
    if (!authzid.empty() && authzid != user)
      return SaslStep::failed(
          "Authentication failed: Client requested an authorization id that is different from "
          "username");
    return SaslStep::complete(std::string(user));
  }

 private:
  std::shared_ptr<const PlainUsers> users_;
};

}  // namespace

std::unique_ptr<SaslServer> make_plain_server(std::shared_ptr<const PlainUsers> users) {
  return std::make_unique<PlainServer>(std::move(users));
}

PlainUsers plain_users_from_jaas(const std::string& jaas_config) {
  PlainUsers users;
  for (const auto& [key, value] : config::parse_jaas_config(jaas_config).options)
    if (key.starts_with(kUserPrefix) && key.size() > kUserPrefix.size()) users[key.substr(kUserPrefix.size())] = value;
  return users;
}

}  // namespace skiff::sasl
