#include "security/oauth/jwt_validator.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <openssl/err.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "common/base64.h"
#include "common/json.h"
#include "security/oauth/jws_verify.h"

namespace skiff::oauth {
namespace {

using Kind = JsonValue::Kind;

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n\f\v");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r\n\f\v") - first + 1);
}

ValidatedToken failure(std::string reason) {
  ValidatedToken t;
  t.reason = std::move(reason);
  return t;
}

ValidatedToken invalid(const std::string& detail) { return failure("Could not validate the access token: " + detail); }

struct Sections {
  std::string_view header, payload, signature;
};

// Kafka's SerializedJwt: three non-blank dot-separated sections.
std::optional<Sections> split_jwt(std::string_view token) {
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    const auto dot = token.find('.', start);
    parts.push_back(trim(token.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start)));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  if (parts.size() != 3 || std::any_of(parts.begin(), parts.end(), [](auto p) { return p.empty(); }))
    return std::nullopt;
  return Sections{parts[0], parts[1], parts[2]};
}

std::optional<JsonValue> json_object(std::string_view b64) {
  auto bytes = base64url_decode(b64);
  if (!bytes) return std::nullopt;
  auto json = parse_json(*bytes);
  if (!json || json->kind != Kind::kObject) return std::nullopt;
  return json;
}

// A NumericDate claim in whole seconds (jose4j's long value), or why not.
bool numeric_date(const JsonValue& claims, const char* name, std::optional<int64_t>& out, std::string& why) {
  const auto* v = claims.find(name);
  if (!v) return true;
  if (v->kind != Kind::kNumber || !std::isfinite(v->number) || std::fabs(v->number) > 9.2e18) {
    why = fmt::format("The value of the '{}' claim is not the expected type", name);
    return false;
  }
  out = static_cast<int64_t>(v->number);
  return true;
}

std::string text(const JsonValue& v) { return v.kind == Kind::kString ? v.string : "(not a string)"; }

// jose4j's AudValidator with Kafka's expected audiences ("": accepted).
std::string check_audience(const JsonValue& c, const std::vector<std::string>& want) {
  if (want.empty()) return "";
  const auto* aud = c.find("aud");
  if (!aud) return "[7] No Audience (aud) claim present.";
  const char* kMalformed = "[18] The value of the 'aud' claim is not the expected type";
  if (aud->kind != Kind::kString && aud->kind != Kind::kArray) return kMalformed;
  std::vector<std::string> auds;
  if (aud->kind == Kind::kString) auds.push_back(aud->string);
  for (const auto& a : aud->array) {
    if (a.kind != Kind::kString) return kMalformed;
    auds.push_back(a.string);
  }
  if (std::any_of(auds.begin(), auds.end(), [&](auto& a) { return std::count(want.begin(), want.end(), a) > 0; }))
    return "";
  return fmt::format(
      "[8] Audience (aud) claim [{}] doesn't contain an acceptable identifier. Expected {} as an aud value.",
      fmt::join(auds, ", "), want.size() == 1 ? want[0] : fmt::format("one of [{}]", fmt::join(want, ", ")));
}

// jose4j's IssValidator ("": accepted).
std::string check_issuer(const JsonValue& c, const std::string& want) {
  if (want.empty()) return "";
  const auto* iss = c.find("iss");
  if (!iss) return "[11] No Issuer (iss) claim present.";
  if (iss->kind != Kind::kString || iss->string != want)
    return fmt::format("[12] Issuer (iss) claim value ({}) doesn't match expected value of {}", text(*iss), want);
  return "";
}

// jose4j's NumericDateValidator with exp and iat required ("": accepted).
std::string check_dates(const JsonValue& c, int32_t skew_s, int64_t now_s) {
  std::optional<int64_t> exp, iat, nbf;
  std::string why;
  if (!numeric_date(c, "exp", exp, why) || !numeric_date(c, "iat", iat, why) || !numeric_date(c, "nbf", nbf, why))
    return "[18] " + why;
  if (!exp) return "[2] No Expiration Time (exp) claim present.";
  if (!iat) return "[3] No Issued At (iat) claim present.";
  const auto leeway =
      skew_s > 0 ? fmt::format(" (even when providing {} seconds of leeway to account for clock skew).", skew_s) : "";
  if (now_s - skew_s >= *exp)
    return fmt::format(
        "[1] The JWT is no longer valid - the evaluation time {} is on or after the Expiration Time (exp={}) claim "
        "value{}",
        now_s, *exp, leeway);
  if (nbf && now_s + skew_s < *nbf)
    return fmt::format(
        "[6] The JWT is not yet valid as the evaluation time {} is before the Not Before (nbf={}) claim time{}", now_s,
        *nbf, leeway);
  return "";
}

// The validators of jose4j's JwtConsumer as Kafka's BrokerJwtValidator builds it.
std::string check_registered_claims(const JsonValue& c, const config::OAuthBearerJwtOptions& o, int64_t now_s) {
  for (auto bad : {check_audience(c, o.expected_audience), check_issuer(c, o.expected_issuer),
                   check_dates(c, o.clock_skew_s, now_s)})
    if (!bad.empty()) return bad;
  if (const auto* sub = c.find("sub"); sub && sub->kind != Kind::kString)
    return "[18] The value of the 'sub' claim is not the expected type";
  return "";
}

// Kafka's ClaimValidationUtils.validateString.
bool valid_string(const std::string& name, const JsonValue* v, std::string& out, std::string& why) {
  if (!v || v->kind == Kind::kNull) {
    why = name + " value must be non-null";
  } else if (v->string.empty()) {
    why = name + " value must be non-empty";
  } else if (trim(v->string).empty()) {
    why = name + " value must not contain only whitespace";
  } else {
    out = std::string(trim(v->string));
    return true;
  }
  return false;
}

// BrokerJwtValidator.validate's own claim reading (scope, exp, sub, iat).
ValidatedToken kafka_claims(const JsonValue& c, const config::OAuthBearerJwtOptions& o) {
  ValidatedToken t;
  std::string why;
  if (const auto* scope = c.find(o.scope_claim)) {
    std::vector<const JsonValue*> items;
    if (scope->kind == Kind::kString) items.push_back(scope);
    if (scope->kind == Kind::kArray)
      for (const auto& s : scope->array) items.push_back(&s);
    for (const auto* s : items) {
      std::string value;
      if (s->kind != Kind::kString && s->kind != Kind::kNull)
        return failure(fmt::format("Could not extract the '{}' claim from the access token", o.scope_claim));
      if (!valid_string(o.scope_claim, s, value, why)) return failure(why);
      if (!t.scope.insert(value).second)
        return failure(fmt::format("{} value must not contain duplicates - {} already present", o.scope_claim, value));
    }
  }
  const auto* sub = c.find(o.sub_claim);
  if (sub && sub->kind != Kind::kString && sub->kind != Kind::kNull)
    return failure(fmt::format("Could not extract the '{}' claim from the access token", o.sub_claim));
  const auto exp = static_cast<int64_t>(c.find("exp")->number);
  if (exp < 0) return failure(fmt::format("exp value must be non-negative; value given was \"{}\"", exp * 1000));
  t.expires_at_ms = exp * 1000;
  if (!valid_string(o.sub_claim, sub, t.principal, why)) return failure(why);
  const auto iat = static_cast<int64_t>(c.find("iat")->number);
  if (iat < 0)
    return failure(fmt::format("iat value must be null or non-negative; value given was \"{}\"", iat * 1000));
  t.issued_at_ms = iat * 1000;
  t.ok = true;
  return t;
}

}  // namespace

JwtValidator::JwtValidator(config::OAuthBearerJwtOptions options, std::shared_ptr<VerificationKeys> keys)
    : options_(std::move(options)), keys_(std::move(keys)) {}

ValidatedToken JwtValidator::validate(std::string_view raw_token, int64_t now_ms) const {
  const auto token = trim(raw_token);
  auto sections = split_jwt(token);
  if (!sections) return failure("Malformed JWT provided; expected three sections (header, payload, and signature)");
  auto header = json_object(sections->header);
  if (!header) return invalid("Unable to process JOSE object: the header is not Base64url-encoded JSON");
  const auto* alg_v = header->find("alg");
  const std::string alg = alg_v && alg_v->kind == Kind::kString ? alg_v->string : "";
  if (alg.empty()) return invalid("A JOSE header alg (algorithm) value is required");
  if (alg == "none") return invalid("'none' is a blocked algorithm");
  if (!known_jws_algorithm(alg))
    return invalid(fmt::format("{} is an unknown, unsupported or unavailable alg algorithm", alg));
  if (header->find("crit")) return invalid("Unrecognized header 'crit' values");
  std::optional<std::string> kid;
  if (const auto* k = header->find("kid"); k && k->kind == Kind::kString) kid = k->string;
  auto keys = keys_->current();
  const Jwk* key = keys ? select_verification_key(*keys, alg, kid) : nullptr;
  const auto header_text = base64url_decode(sections->header).value_or("");
  if (!key) {
    if (kid) keys_->missing_key(*kid);
    return invalid(
        fmt::format("JWT processing failed. Additional details: [[17] Unable to process JOSE object (cause: "
                    "Unable to find a suitable verification key for JWS w/ header {} from JWKs {} obtained from {})]",
                    header_text, keys ? keys->describe() : "[]", keys_->location()));
  }
  auto signature = base64url_decode(sections->signature);
  const auto signing_input = token.substr(0, sections->payload.data() + sections->payload.size() - token.data());
  std::string why;
  const bool verified = signature && verify_jws_signature(alg, signing_input, *signature, *key, why);
  ERR_clear_error();  // OpenSSL's queue of this thread: a refusal is no error of ours
  if (!verified)
    return invalid(fmt::format("JWT rejected due to invalid signature. Additional details: [[9] {}]",
                               signature ? why : "JWS signature is invalid"));
  auto claims = json_object(sections->payload);
  if (!claims) return invalid("Unable to parse JWT claims: the payload is not Base64url-encoded JSON object");
  if (auto bad = check_registered_claims(*claims, options_, now_ms / 1000); !bad.empty())
    return invalid(fmt::format(
        "JWT (claims->{}) rejected due to invalid claims or other invalid content. Additional details: [{}]",
        base64url_decode(sections->payload).value_or(""), bad));
  return kafka_claims(*claims, options_);
}

}  // namespace skiff::oauth
