#include "security/sasl/oauthbearer_server.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "common/base64.h"
#include "common/json.h"
#include "config/string_util.h"

namespace skiff::sasl {
namespace {

using Kind = JsonValue::Kind;
constexpr char kSeparator = '\x01';
constexpr std::string_view kMechanism = "OAUTHBEARER";

struct OAuthClientFirst {
  std::string authzid;
  std::string token;
};

bool is_word(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_token_char(char c) { return is_word(c) || c == '-' || c == '.'; }
bool is_key_char(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
bool is_value_char(char c) { return (c >= 0x21 && c <= 0x7e) || c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// RFC 5801's saslname: 7-bit characters, ',' and '=' only as =2C and =3D.
bool is_saslname(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '=') {
      if (s.substr(i, 3) != "=2C" && s.substr(i, 3) != "=3D") return false;
      i += 2;
    } else if (c < 0x01 || c == ',') {  // char is signed: bytes >= 0x80 are negative
      return false;
    }
  }
  return !s.empty();
}

// The auth value "Bearer <token>": a scheme word, spaces, the token.
std::optional<std::string> bearer_token(std::string_view auth, std::string& why) {
  const auto space = auth.find(' ');
  const auto token_at = auth.find_first_not_of(' ', space);
  const auto scheme = auth.substr(0, space);
  const auto token = token_at == std::string_view::npos ? std::string_view() : auth.substr(token_at);
  if (space == std::string_view::npos || scheme.empty() || token.empty() ||
      !std::all_of(scheme.begin(), scheme.end(), is_word) || !std::all_of(token.begin(), token.end(), is_token_char)) {
    why = "Invalid OAUTHBEARER client first message: invalid 'auth' format";
    return std::nullopt;
  }
  if (config::to_lower(scheme) != "bearer") {
    why = fmt::format("Invalid scheme in OAUTHBEARER client first message: {}", scheme);
    return std::nullopt;
  }
  return std::string(token);
}

// "key=value\x01" pairs up to the final "\x01", which must end the message.
std::optional<std::map<std::string, std::string>> key_values(std::string_view rest) {
  std::map<std::string, std::string> pairs;
  while (rest.size() > 1) {
    const auto eq = rest.find('=');
    const auto end = rest.find(kSeparator);
    if (eq == 0 || eq == std::string_view::npos || end == std::string_view::npos || end < eq + 2) return std::nullopt;
    const auto key = rest.substr(0, eq), value = rest.substr(eq + 1, end - eq - 1);
    if (!std::all_of(key.begin(), key.end(), is_key_char) || !std::all_of(value.begin(), value.end(), is_value_char))
      return std::nullopt;
    pairs[std::string(key)] = std::string(value);
    rest.remove_prefix(end + 1);
  }
  if (rest.size() != 1 || rest[0] != kSeparator) return std::nullopt;
  return pairs;
}

std::optional<OAuthClientFirst> parse_client_first(std::string_view msg, std::string& why) {
  why = "Invalid OAUTHBEARER client first message";
  if (!msg.starts_with("n,")) return std::nullopt;
  msg.remove_prefix(2);
  OAuthClientFirst out;
  const auto comma = msg.find(',');
  if (comma == std::string_view::npos) return std::nullopt;
  if (comma > 0) {
    if (!msg.starts_with("a=") || !is_saslname(msg.substr(2, comma - 2))) return std::nullopt;
    out.authzid = std::string(msg.substr(2, comma - 2));
  }
  msg.remove_prefix(comma + 1);
  if (msg.empty() || msg[0] != kSeparator) return std::nullopt;
  auto pairs = key_values(msg.substr(1));
  if (!pairs) return std::nullopt;
  auto auth = pairs->find("auth");
  if (auth == pairs->end()) {
    why = "Invalid OAUTHBEARER client first message: 'auth' not specified";
    return std::nullopt;
  }
  auto token = bearer_token(auth->second, why);
  if (!token) return std::nullopt;
  out.token = std::move(*token);
  return out;
}

// Kafka reads a claim as a Number, a List (of strings) or, anything else, as
// the JSON node's text.
std::string type_name(const JsonValue& v) {
  return v.kind == Kind::kNumber ? "Number" : v.kind == Kind::kArray ? "List" : "String";
}

std::string text_of(const JsonValue& v) {
  switch (v.kind) {
    case Kind::kString:
      return v.string;
    case Kind::kBool:
      return v.boolean ? "true" : "false";
    case Kind::kNull:
      return "null";
    case Kind::kNumber:
      return fmt::format("{}", v.number);
    default:
      return "";
  }
}

std::optional<JsonValue> decode_part(std::string_view part) {
  auto bytes = base64url_decode(part);
  if (!bytes) return std::nullopt;
  auto json = parse_json(*bytes);
  if (!json || json->kind != Kind::kObject) return std::nullopt;
  return json;
}

// A claim that must be a number if present (exp, iat), in milliseconds.
bool number_claim_ms(const JsonValue& claims, const char* name, std::optional<int64_t>& out, std::string& why) {
  const auto* v = claims.find(name);
  if (!v) return true;
  if (v->kind != Kind::kNumber) {
    why = fmt::format("The '{}' claim was not of type Number: {}", name, type_name(*v));
    return false;
  }
  out = std::llround(v->number * 1000);
  return true;
}

// The token's scope: a string claim (one scope) or a list of them.
bool token_scope(const JsonValue& claims, const std::string& name, std::set<std::string>& out, std::string& why) {
  const auto* v = claims.find(name);
  if (!v) return true;
  if (v->kind == Kind::kNumber) {
    why = fmt::format("The '{}' claim was not of type List: Number", name);
    return false;
  }
  // trim() views its argument: the text must outlive the view.
  auto add = [&out](const std::string& text) {
    if (auto s = config::trim(text); !s.empty()) out.insert(std::string(s));
  };
  if (v->kind != Kind::kArray) {
    add(text_of(*v));
    return true;
  }
  for (const auto& item : v->array) add(text_of(item));
  return true;
}

JwsCheck failure(std::string reason, std::string missing_scope = "") {
  JwsCheck c;
  c.reason = std::move(reason);
  c.missing_scope = std::move(missing_scope);
  return c;
}

// The claims checks of Kafka's OAuthBearerValidationUtils, at `now_ms`.
JwsCheck check_times_and_scope(JwsCheck c, std::optional<int64_t> iat, const std::set<std::string>& scope,
                               const config::OAuthBearerOptions& o, int64_t now_ms) {
  const int64_t skew = o.clock_skew_ms;
  if (iat && *iat > now_ms + skew)
    return failure(
        fmt::format("The Issued At value ({} s) was after the indicated time ({} ms) plus allowable "
                    "clock skew ({} ms)",
                    *iat / 1000.0, now_ms, skew));
  if (now_ms - skew >= c.expires_at_ms)
    return failure(
        fmt::format("The indicated time ({} ms) minus allowable clock skew ({} ms) was on or after the "
                    "Expiration Time value ({} s)",
                    now_ms, skew, c.expires_at_ms / 1000.0));
  if (iat && c.expires_at_ms <= *iat)
    return failure(fmt::format("The Expiration Time ({} s) was not after the Issued At time ({} s)",
                               c.expires_at_ms / 1000.0, *iat / 1000.0));
  for (const auto& required : o.required_scope)
    if (!scope.count(required))
      return failure(fmt::format("The provided scope ({}) was missing a required scope value ({})",
                                 fmt::join(scope, ", "), required),
                     required);
  c.ok = true;
  return c;
}

// The claims of an unsecured JWS ("alg":"none", no signature), or why not.
std::optional<JsonValue> unsecured_claims(std::string_view jws, std::string& why) {
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    const auto dot = jws.find('.', start);
    parts.push_back(jws.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  if (jws.find("..") != std::string_view::npos) {
    why = "Malformed compact serialization contains '..'";
  } else if (parts.size() != 3) {
    why = "Unsecured JWS compact serializations must have 3 dot-separated Base64URL-encoded values";
  } else if (auto header = decode_part(parts[0]), claims = decode_part(parts[1]); !header || !claims) {
    why = "malformed Base64 URL encoded value or JSON object";
  } else if (const auto* alg = header->find("alg"); !alg) {
    why = "JWS header must have an Algorithm value";
  } else if (text_of(*alg) != "none") {
    why = "Unsecured JWS must have 'none' for an algorithm";
  } else if (!parts[2].empty()) {
    why = "Unsecured JWS must not contain a digital signature";
  } else {
    return claims;
  }
  return std::nullopt;
}

}  // namespace

JwsCheck check_unsecured_jws(std::string_view jws, const config::OAuthBearerOptions& o, int64_t now_ms) {
  std::string why;
  auto claims = unsecured_claims(jws, why);
  if (!claims) return failure(why);
  std::set<std::string> scope;
  std::optional<int64_t> exp, iat;
  if (!token_scope(*claims, o.scope_claim, scope, why) || !number_claim_ms(*claims, "exp", exp, why) ||
      !number_claim_ms(*claims, "iat", iat, why))
    return failure(why);
  if (!exp) return failure("No expiration time in JWT");
  JwsCheck c;
  c.expires_at_ms = *exp;
  if (const auto* p = claims->find(o.principal_claim); p && p->kind != Kind::kString && p->kind != Kind::kNull)
    return failure(fmt::format("The '{}' claim was not of type String: {}", o.principal_claim, type_name(*p)));
  else if (p && p->kind == Kind::kString)
    c.principal = p->string;
  if (config::trim(c.principal).empty()) return failure("No principal name in JWT claim: " + o.principal_claim);
  return check_times_and_scope(std::move(c), iat, scope, o, now_ms);
}

namespace {

class OAuthBearerServer : public SaslServer {
 public:
  OAuthBearerServer(TokenCheck check, ClockMs now_ms) : check_(std::move(check)), now_ms_(std::move(now_ms)) {}

  SaslStep step(std::string_view message) override {
    if (!error_json_.empty() && message == std::string_view(&kSeparator, 1))
      return SaslStep::failed(error_json_, error_detail_);  // the client has read our error
    error_json_.clear();
    std::string why;
    auto first = parse_client_first(message, why);
    if (!first) return SaslStep::failed(invalid_credentials_message(kMechanism), why);
    auto check = check_(first->token, now_ms_());
    if (!check.ok) {
      error_json_ = check.missing_scope.empty()
                        ? R"({"status":"invalid_token"})"
                        : fmt::format(R"({{"status":"insufficient_scope", "scope":"{}"}})", check.missing_scope);
      error_detail_ = check.reason;
      return SaslStep::challenge(error_json_);
    }
    if (!first->authzid.empty() && first->authzid != check.principal)
      return SaslStep::failed(
          fmt::format("Authentication failed: Client requested an authorization id ({}) that is "
                      "different from the token's principal name ({})",
                      first->authzid, check.principal));
    auto done = SaslStep::complete(check.principal);
    done.expires_at_ms = check.expires_at_ms;
    return done;
  }

 private:
  TokenCheck check_;
  ClockMs now_ms_;
  std::string error_json_;  // set while the client is to answer our error with "\x01"
  std::string error_detail_;
};

}  // namespace

std::unique_ptr<SaslServer> make_oauthbearer_server(std::shared_ptr<const config::OAuthBearerOptions> options,
                                                    ClockMs now_ms) {
  auto check = [options = std::move(options)](std::string_view token, int64_t now) {
    return check_unsecured_jws(token, *options, now);
  };
  return std::make_unique<OAuthBearerServer>(std::move(check), std::move(now_ms));
}

std::unique_ptr<SaslServer> make_oauthbearer_server(TokenCheck check, ClockMs now_ms) {
  return std::make_unique<OAuthBearerServer>(std::move(check), std::move(now_ms));
}

}  // namespace skiff::sasl
