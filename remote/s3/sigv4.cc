#include "remote/s3/sigv4.h"

#include <algorithm>
#include <ctime>
#include <map>

#include "remote/s3/digest.h"

namespace skiff::remote::s3 {
namespace {

bool unreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
         c == '_' || c == '~';
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

// Trims and folds runs of spaces to one, as SigV4 canonical header values.
std::string fold_spaces(std::string_view v) {
  std::string out;
  bool space = false;
  for (char c : v) {
    if (c == ' ' || c == '\t') {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

}  // namespace

std::string uri_encode(std::string_view s, bool keep_slash) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size() * 3);
  for (unsigned char c : s) {
    if (unreserved(c) || (keep_slash && c == '/')) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

std::string canonical_query(const NameValues& query) {
  std::vector<std::pair<std::string, std::string>> enc;
  enc.reserve(query.size());
  for (const auto& [n, v] : query) enc.emplace_back(uri_encode(n, false), uri_encode(v, false));
  std::sort(enc.begin(), enc.end());
  std::string out;
  for (const auto& [n, v] : enc) {
    if (!out.empty()) out.push_back('&');
    out += n;
    out.push_back('=');
    out += v;
  }
  return out;
}

Signature sign_v4(const SigningInput& in, std::string_view access_key_id, std::string_view secret_access_key) {
  std::map<std::string, std::string> headers;  // sorted by lower-case name
  for (const auto& [n, v] : in.headers) {
    auto& slot = headers[lower(n)];
    if (!slot.empty()) slot.push_back(',');
    slot += fold_spaces(v);
  }
  Signature s;
  std::string canonical_headers;
  for (const auto& [n, v] : headers) {
    canonical_headers.append(n).append(":").append(v).append("\n");
    if (!s.signed_headers.empty()) s.signed_headers.push_back(';');
    s.signed_headers += n;
  }
  s.canonical_request = in.method + "\n" + in.canonical_uri + "\n" + canonical_query(in.query) + "\n" +
                        canonical_headers + "\n" + s.signed_headers + "\n" + in.payload_hash;
  const std::string day = in.amz_date.substr(0, 8);
  const std::string scope = day + "/" + in.region + "/" + in.service + "/aws4_request";
  s.string_to_sign = "AWS4-HMAC-SHA256\n" + in.amz_date + "\n" + scope + "\n" + sha256_hex(s.canonical_request);
  std::string key = hmac_sha256("AWS4" + std::string(secret_access_key), day);
  key = hmac_sha256(key, in.region);
  key = hmac_sha256(key, in.service);
  key = hmac_sha256(key, "aws4_request");
  s.signature = hex_lower(hmac_sha256(key, s.string_to_sign));
  s.authorization = "AWS4-HMAC-SHA256 Credential=" + std::string(access_key_id) + "/" + scope +
                    ", SignedHeaders=" + s.signed_headers + ", Signature=" + s.signature;
  return s;
}

std::string amz_date_of(long long unix_seconds) {
  std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

}  // namespace skiff::remote::s3
