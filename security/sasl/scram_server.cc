#include "security/sasl/scram_server.h"

#include <fmt/format.h>

#include <chrono>
#include <vector>

namespace skiff::sasl {
namespace {

constexpr size_t kServerNonceBytes = 24;  // 32 base64 characters
constexpr std::string_view kAuthzidMismatch =
    "Authentication failed: Client requested an authorization id that is different from username";

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t at = s.find(sep); at != std::string_view::npos; at = s.find(sep, start)) {
    parts.push_back(s.substr(start, at - start));
    start = at + 1;
  }
  parts.push_back(s.substr(start));
  return parts;
}

// RFC 5802's saslname: "=2C" is ',', "=3D" is '=', any other '=' (and NUL, ',') is malformed.
std::optional<std::string> decode_saslname(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\0' || s[i] == ',') return std::nullopt;
    if (s[i] != '=') {
      out.push_back(s[i]);
    } else if (s.substr(i, 3) == "=2C" || s.substr(i, 3) == "=3D") {
      out.push_back(s[i + 1] == '2' ? ',' : '=');
      i += 2;
    } else {
      return std::nullopt;
    }
  }
  if (out.empty()) return std::nullopt;
  return out;
}

// A nonce: printable ASCII but ','; not empty.
bool valid_nonce(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < 0x21 || c > 0x7e || c == ',') return false;
  return true;
}

// An extension "name=value": an alphabetic name, a non-empty value.
bool valid_extension(std::string_view s) {
  auto eq = s.find('=');
  if (eq == 0 || eq == std::string_view::npos || eq + 1 == s.size()) return false;
  for (char c : s.substr(0, eq))
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) return false;
  return true;
}

bool is_true(std::string_view v) {
  return v.size() == 4 && (v[0] | 0x20) == 't' && (v[1] | 0x20) == 'r' && (v[2] | 0x20) == 'u' && (v[3] | 0x20) == 'e';
}

struct ScramClientFirst {
  std::string gs2_header;  // "n,," or "n,a=...,"
  std::optional<std::string> authzid;
  std::string user;
  std::string nonce;
  std::string bare;  // client-first-message-bare, as sent
  bool token_auth = false;
};

std::optional<ScramClientFirst> parse_client_first(std::string_view msg) {
  if (msg.size() < 3 || msg[0] != 'n' || msg[1] != ',') return std::nullopt;  // only gs2 "n": no channel binding
  auto comma = msg.find(',', 2);
  if (comma == std::string_view::npos) return std::nullopt;
  ScramClientFirst f;
  if (auto authz = msg.substr(2, comma - 2); !authz.empty()) {
    if (!authz.starts_with("a=") || !(f.authzid = decode_saslname(authz.substr(2)))) return std::nullopt;
  }
  f.gs2_header = msg.substr(0, comma + 1);
  f.bare = msg.substr(comma + 1);
  auto parts = split(f.bare, ',');
  if (parts.size() < 2 || !parts[0].starts_with("n=") || !parts[1].starts_with("r=")) return std::nullopt;
  auto user = decode_saslname(parts[0].substr(2));
  if (!user || !valid_nonce(parts[1].substr(2))) return std::nullopt;
  f.user = std::move(*user);
  f.nonce = parts[1].substr(2);
  for (size_t i = 2; i < parts.size(); ++i) {
    if (!valid_extension(parts[i])) return std::nullopt;
    if (parts[i].starts_with("tokenauth=") && is_true(parts[i].substr(10))) f.token_auth = true;
  }
  return f;
}

struct ClientFinal {
  std::string_view without_proof;
  std::string_view channel_binding;  // base64, as sent
  std::string_view nonce;
  std::string proof;
};

std::optional<ClientFinal> parse_client_final(std::string_view msg) {
  auto at = msg.rfind(",p=");
  if (at == std::string_view::npos) return std::nullopt;
  auto proof = base64_decode(msg.substr(at + 3));
  if (!proof) return std::nullopt;
  ClientFinal f;
  f.without_proof = msg.substr(0, at);
  f.proof = std::move(*proof);
  auto parts = split(f.without_proof, ',');
  if (parts.size() < 2 || !parts[0].starts_with("c=") || !parts[1].starts_with("r=")) return std::nullopt;
  for (size_t i = 2; i < parts.size(); ++i)
    if (!valid_extension(parts[i])) return std::nullopt;
  f.channel_binding = parts[0].substr(2);
  f.nonce = parts[1].substr(2);
  return f;
}

// A made-up credential for a user without one: keyed by a per-process
// secret, so the salt a prober sees for a name is stable and looks real, and
// no proof matches it.
ScramCredential fake_credential(ScramMechanism m, std::string_view user) {
  static const std::string secret = random_bytes(32);
  std::string tag = fmt::format("{}\n{}", mechanism_name(m), user);
  ScramCredential c;
  c.salt = scram_hmac(m, secret, "salt\n" + tag).substr(0, 32);
  c.stored_key = scram_hmac(m, secret, "stored\n" + tag);
  c.server_key = scram_hmac(m, secret, "server\n" + tag);
  c.iterations = kScramMinIterations;
  return c;
}

class ScramServer : public SaslServer {
 public:
  ScramServer(ScramMechanism m, const ScramCredentialStore& store, const DelegationTokenStore* tokens,
              std::string server_nonce)
      : mechanism_(m), store_(store), tokens_(tokens), server_nonce_(std::move(server_nonce)) {}

  SaslStep step(std::string_view token) override {
    auto state = state_;
    state_ = State::kDone;  // unless a step says otherwise
    switch (state) {
      case State::kClientFirst:
        return on_client_first(token);
      case State::kClientFinal:
        return on_client_final(token);
      case State::kDone:
        break;
    }
    return fail("a token after the exchange ended");
  }

 private:
  enum class State { kClientFirst, kClientFinal, kDone };

  SaslStep fail(std::string log_detail) {
    return SaslStep::failed(scram_failure_message(mechanism_), std::move(log_detail));
  }

  SaslStep on_client_first(std::string_view token) {
    auto first = parse_client_first(token);
    if (!first) return fail("malformed SCRAM client-first message");
    if (first->authzid && *first->authzid != first->user)
      return SaslStep::failed(std::string(kAuthzidMismatch), "authorization id differs from the user name");
    std::optional<ScramCredential> credential;
    if (first->token_auth) {
      // As Kafka's ScramSaslServer: an unknown token fails at once.
      token_ = tokens_ ? tokens_->credential(first->user, mechanism_, now_ms()) : std::nullopt;
      if (!token_)
        return fail(fmt::format(
            "Token Authentication failed: Invalid tokenId : {} (unknown, expired or tokens disabled)", first->user));
      credential = token_->credential;
    } else {
      credential = store_.lookup(first->user, mechanism_);
    }
    known_user_ = credential.has_value();
    credential_ = known_user_ ? std::move(*credential) : fake_credential(mechanism_, first->user);
    nonce_ = first->nonce + server_nonce_;
    server_first_ = fmt::format("r={},s={},i={}", nonce_, base64_encode(credential_.salt), credential_.iterations);
    client_first_ = std::move(*first);
    state_ = State::kClientFinal;
    return SaslStep::challenge(server_first_);
  }

  SaslStep on_client_final(std::string_view token) {
    auto final_msg = parse_client_final(token);
    if (!final_msg) return fail("malformed SCRAM client-final message");
    if (final_msg->channel_binding != base64_encode(client_first_.gs2_header))
      return fail("channel binding does not match the gs2 header");
    if (final_msg->nonce != nonce_) return fail("nonce does not match");
    std::string auth_message = fmt::format("{},{},{}", client_first_.bare, server_first_, final_msg->without_proof);
    std::string client_key = scram_hmac(mechanism_, credential_.stored_key, auth_message);  // ClientSignature
    if (final_msg->proof.size() != client_key.size()) return fail("client proof of the wrong length");
    for (size_t i = 0; i < client_key.size(); ++i) client_key[i] ^= final_msg->proof[i];  // now ClientKey
    bool proven = constant_time_equal(scram_hash(mechanism_, client_key), credential_.stored_key);
    if (!known_user_) return fail(fmt::format("unknown user '{}'", client_first_.user));
    if (!proven) return fail(fmt::format("invalid proof (wrong password) for user '{}'", client_first_.user));
    auto signature = scram_hmac(mechanism_, credential_.server_key, auth_message);
    if (!token_) return SaslStep::complete(client_first_.user, "v=" + base64_encode(signature));
    auto done = SaslStep::complete(token_->owner_name, "v=" + base64_encode(signature));
    done.token_authenticated = true;
    done.expires_at_ms = token_->expiry_ms;
    return done;
  }

  static int64_t now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
  }

  ScramMechanism mechanism_;
  const ScramCredentialStore& store_;
  const DelegationTokenStore* tokens_;
  std::optional<TokenCredential> token_;  // a "tokenauth" login's token
  std::string server_nonce_;
  State state_ = State::kClientFirst;
  ScramClientFirst client_first_;
  ScramCredential credential_;
  bool known_user_ = false;
  std::string nonce_;
  std::string server_first_;
};

}  // namespace

std::string scram_failure_message(ScramMechanism m) { return invalid_credentials_message(mechanism_name(m)); }

std::unique_ptr<SaslServer> make_scram_server(ScramMechanism m, const ScramCredentialStore& store,
                                              const DelegationTokenStore* tokens) {
  return make_scram_server(m, store, tokens, base64_encode(random_bytes(kServerNonceBytes)));
}

std::unique_ptr<SaslServer> make_scram_server(ScramMechanism m, const ScramCredentialStore& store,
                                              const DelegationTokenStore* tokens, std::string server_nonce) {
  return std::make_unique<ScramServer>(m, store, tokens, std::move(server_nonce));
}

}  // namespace skiff::sasl
