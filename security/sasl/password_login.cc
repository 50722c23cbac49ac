#include "security/sasl/password_login.h"

#include <algorithm>

#include "common/base64.h"
#include "security/sasl/scram.h"

namespace skiff::sasl {
namespace {

// The value of attribute `name` ("s", "i", "r", ...) in a SCRAM message.
std::optional<std::string> attribute(const std::string& message, char name) {
  size_t at = 0;
  while (at < message.size()) {
    const size_t end = std::min(message.find(',', at), message.size());
    if (end - at >= 2 && message[at] == name && message[at + 1] == '=') return message.substr(at + 2, end - at - 2);
    at = end + 1;
  }
  return std::nullopt;
}

// RFC 5802's saslname: ',' and '=' escaped.
std::string sasl_name(const std::string& user) {
  std::string out;
  for (char c : user) out += c == ',' ? "=2C" : c == '=' ? "=3D" : std::string(1, c);
  return out;
}

std::optional<std::string> scram_login(SaslServer& server, ScramMechanism m, const std::string& user,
                                       const std::string& password) {
  const std::string nonce = base64_encode(random_bytes(18));
  const std::string client_bare = "n=" + sasl_name(user) + ",r=" + nonce;
  auto first = server.step("n,," + client_bare);
  if (first.outcome != SaslStep::Outcome::kChallenge) return std::nullopt;
  const auto salt = attribute(first.token, 's');
  const auto iterations = attribute(first.token, 'i');
  const auto server_nonce = attribute(first.token, 'r');
  if (!salt || !iterations || !server_nonce || server_nonce->rfind(nonce, 0) != 0) return std::nullopt;
  const auto salt_bytes = base64_decode(*salt);
  int32_t rounds = 0;
  try {
    rounds = std::stoi(*iterations);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (!salt_bytes || rounds <= 0) return std::nullopt;
  const std::string without_proof = "c=" + base64_encode("n,,") + ",r=" + *server_nonce;
  const std::string auth_message = client_bare + "," + first.token + "," + without_proof;
  const std::string salted = scram_hi(m, password, *salt_bytes, rounds);
  const std::string client_key = scram_client_key(m, salted);
  const std::string signature = scram_hmac(m, scram_hash(m, client_key), auth_message);
  std::string proof = client_key;
  for (size_t i = 0; i < proof.size(); ++i) proof[i] = static_cast<char>(proof[i] ^ signature[i]);
  auto last = server.step(without_proof + ",p=" + base64_encode(proof));
  if (last.outcome != SaslStep::Outcome::kComplete) return std::nullopt;
  return last.user;
}

}  // namespace

std::optional<std::string> password_login(const SaslMechanisms& mechanisms, const std::string& listener,
                                          const std::string& user, const std::string& password) {
  const auto& enabled = mechanisms.enabled(listener);
  for (const char* name : kPasswordMechanisms) {
    if (std::find(enabled.begin(), enabled.end(), name) == enabled.end()) continue;
    auto server = mechanisms.start(listener, name);
    if (!server) continue;
    if (auto m = mechanism_from_name(name)) return scram_login(*server, *m, user, password);
    std::string token(1, '\0');  // PLAIN: authzid NUL authcid NUL password
    token.append(user).push_back('\0');
    token.append(password);
    auto step = server->step(token);
    return step.outcome == SaslStep::Outcome::kComplete ? std::optional<std::string>(step.user) : std::nullopt;
  }
  return std::nullopt;
}

std::string password_listener(const config::BrokerConfig& config, const SaslMechanisms& mechanisms) {
  for (const auto& l : config.listeners) {
    if (!config.uses_sasl(l.name)) continue;
    const auto& enabled = mechanisms.enabled(l.name);
    for (const char* m : kPasswordMechanisms)
      if (std::find(enabled.begin(), enabled.end(), m) != enabled.end()) return l.name;
  }
  return "";
}

std::optional<BasicCredentials> basic_credentials(std::string_view authorization) {
  if (!authorization.starts_with("Basic ")) return std::nullopt;
  const auto decoded = base64_decode(authorization.substr(6));
  const size_t colon = decoded ? decoded->find(':') : std::string::npos;
  if (colon == std::string::npos) return std::nullopt;
  return BasicCredentials{decoded->substr(0, colon), decoded->substr(colon + 1)};
}

}  // namespace skiff::sasl
