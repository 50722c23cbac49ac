// An S3 endpoint URL ("http://127.0.0.1:7070", "https://s3.eu-west-1.amazonaws.com")
// and where a bucket's requests go: path-style ("host/bucket/key") or
// virtual-hosted-style ("bucket.host/key"), as storage.s3.path.style.access.enabled
// chooses. Values, pure functions, any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/expected.h"

namespace skiff::remote::s3 {

struct Endpoint {
  bool tls = false;
  std::string host;       // without brackets for IPv6
  std::string port;       // "443" / "80" when not given
  std::string base_path;  // "" or "/prefix" (no trailing '/')

  // The Host header for `host` (bracketed IPv6, port left out when default).
  std::string host_header(std::string_view host) const;
};

// http(s)://host[:port][/path]; no user info, query or fragment.
Expected<Endpoint, std::string> parse_endpoint(std::string_view url);

// Where one request goes.
struct Target {
  std::string connect_host;  // the name resolved and dialled (and the TLS SNI / verified name)
  std::string host_header;
  std::string canonical_uri;  // encoded path, also the request path
};

// The target of `bucket` and `key` (key empty: the bucket itself).
Target target_of(const Endpoint& e, bool path_style, std::string_view bucket, std::string_view key);

}  // namespace skiff::remote::s3
