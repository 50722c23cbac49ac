// One HTTP(S) GET of a small document (a JWKS), bounded in time and size:
// Boost.Beast over Boost.Asio, TLS by OpenSSL with the peer's certificate
// checked against the given PEM trust store (or OpenSSL's default paths) and,
// unless turned off, its host name. Blocking: call it only from a thread of
// its own (the JWKS refresher's), never from a network or handler thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace skiff::oauth {

struct HttpGetOptions {
  std::string truststore_location;      // PEM file of trusted CAs; empty: OpenSSL's defaults
  std::string truststore_certificates;  // PEM text of trusted CAs
  bool verify_hostname = true;
  std::chrono::milliseconds timeout{10000};  // the whole exchange
  size_t max_body_bytes = 1 << 20;
};

struct HttpGetResult {
  bool ok = false;  // a 200 response was read
  int status = 0;
  std::string body;
  std::string error;  // !ok: what went wrong
};

HttpGetResult http_get(const std::string& url, const HttpGetOptions& options);

}  // namespace skiff::oauth
