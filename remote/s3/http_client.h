// A synchronous HTTP/1.1 client for the S3 client: Boost.Beast over TCP, or
// over TLS by OpenSSL (trust from a CA file or directory, else OpenSSL's
// default paths; SNI; the server's certificate checked against the host name
// unless turned off). Keep-alive connections are kept in a small pool per
// host:port and reused; a reused connection that the server had closed
// (nothing read back) is replaced by a new one once. Connect (with TLS
// handshake), write and read each have a timeout; the name lookup before
// connect is the system resolver's, bounded by its own settings.
//
// Threads: send() may be called from several threads at once; each call uses
// a connection of its own (the pool is under a mutex). Blocking: never call it
// from a network or handler thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"
#include "remote/s3/s3_error.h"
#include "remote/s3/sigv4.h"

namespace skiff::remote::s3 {

struct HttpOptions {
  std::string ca_file;  // PEM file of trusted CAs; empty (and no ca_dir): OpenSSL's default paths
  std::string ca_dir;   // OpenSSL hashed CA directory
  bool verify_hostname = true;
  std::chrono::milliseconds connect_timeout{5000};  // connect + TLS handshake (name lookup: the system's own bounds)
  std::chrono::milliseconds io_timeout{30000};      // writing the request; reading the answer
  size_t max_idle_per_host = 4;
  size_t max_response_bytes = size_t{1} << 30;
  // Host name -> address to dial instead of looking it up (as curl's
  // --resolve); the name is still the Host header, SNI and verified name.
  std::map<std::string, std::string> resolve_overrides;
};

struct HttpRequest {
  std::string method;  // "GET"
  std::string target;  // encoded path and query: "/b/k?uploads="
  NameValues headers;  // sent as given (Host included)
  std::string_view body;
};

struct HttpResponse {
  int status = 0;
  NameValues headers;  // lower-case names
  std::string body;
  // The first header named `name` (lower case), or "".
  std::string header(std::string_view name) const;
};

struct HttpPeer {
  std::string host;  // resolved, dialled, SNI and verified name
  std::string port;
  bool tls = false;
};

class HttpClient {
 public:
  explicit HttpClient(HttpOptions options);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // One exchange. An error is a transport error (kConnection / kTimeout /
  // kConfig); any HTTP status is a response.
  Expected<HttpResponse, S3Error> send(const HttpPeer& peer, const HttpRequest& request);

  // Connections opened since construction (for tests of reuse).
  size_t connections_opened() const;

  struct Connection;

 private:
  Expected<std::unique_ptr<Connection>, S3Error> connect(const HttpPeer& peer);
  std::unique_ptr<Connection> take_idle(const std::string& key);
  void give_back(const std::string& key, std::unique_ptr<Connection> c);

  HttpOptions options_;
  struct TlsContext;
  std::unique_ptr<TlsContext> tls_;
  std::string tls_error_;  // why the TLS context could not be made, if so
  mutable std::mutex mu_;
  std::map<std::string, std::vector<std::unique_ptr<Connection>>> idle_;
  size_t opened_ = 0;
};

}  // namespace skiff::remote::s3
