// AWS Signature Version 4, header form (the Authorization header), as S3 and
// AWS's published test suite define it:
//   CanonicalRequest = Method \n CanonicalURI \n CanonicalQuery \n
//                      CanonicalHeaders \n SignedHeaders \n PayloadHash
//   StringToSign     = "AWS4-HMAC-SHA256" \n AmzDate \n Scope \n hex(SHA256(CanonicalRequest))
//   Scope            = yyyymmdd/region/service/aws4_request
//   SigningKey       = HMAC(HMAC(HMAC(HMAC("AWS4"+secret, yyyymmdd), region), service), "aws4_request")
// URI encoding is strict RFC 3986: only A-Z a-z 0-9 - . _ ~ pass through, every
// other byte is %XX (upper-case hex), '/' too except in a path. A query is
// given as raw (decoded) name/value pairs; the canonical query string, which
// is also the exact query the HTTP client sends, encodes both and sorts by
// name then value. Header values are trimmed and inner runs of spaces folded;
// repeated names join with ',' in the order given. Pure functions, any thread.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace skiff::remote::s3 {

using NameValues = std::vector<std::pair<std::string, std::string>>;

// RFC 3986 percent-encoding; `keep_slash` leaves '/' as is (object keys in a path).
std::string uri_encode(std::string_view s, bool keep_slash);
// "a=1&b=2": encoded, sorted; a name with an empty value is "name=".
std::string canonical_query(const NameValues& query);

struct SigningInput {
  std::string method;         // "GET"
  std::string canonical_uri;  // already encoded: "/bucket/a%20key"
  NameValues query;           // raw pairs
  NameValues headers;         // every header to sign, host and x-amz-date included
  std::string payload_hash;   // hex SHA-256 of the body, or "UNSIGNED-PAYLOAD"
  std::string amz_date;       // "20150830T123600Z"
  std::string region;
  std::string service = "s3";
};

struct Signature {
  std::string canonical_request;
  std::string string_to_sign;
  std::string signed_headers;  // "host;x-amz-date"
  std::string signature;       // 64 hex digits
  std::string authorization;   // the Authorization header's value
};

Signature sign_v4(const SigningInput& in, std::string_view access_key_id, std::string_view secret_access_key);

// "20150830T123600Z" for a time_t (UTC).
std::string amz_date_of(long long unix_seconds);

}  // namespace skiff::remote::s3
