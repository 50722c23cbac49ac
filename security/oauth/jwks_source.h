// The JWKS sources of Kafka's OAuthBearerValidatorCallbackHandler:
//   JwksFile      a file: URL (JwksFileVerificationKeyResolver): read at
//                 start, read again when its modification time changes;
//   JwksEndpoint  an https:// or http:// URL (RefreshingHttpsJwks): fetched at
//                 start, then every refresh.ms on a thread of its own, and
//                 soon when a token names a key id it lacks (at most once a
//                 minute per key id, 16 ids remembered); a failed refresh is
//                 retried with exponential backoff for up to backoff.max.ms,
//                 then logged, the keys fetched before kept.
// Thread rules: current() and missing_key() may be called from any thread
// (they never block on the network); the endpoint's fetches run on its own
// thread, which the destructor stops.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "config/sasl_settings.h"
#include "security/oauth/http_get.h"
#include "security/oauth/jwt_validator.h"

namespace skiff::oauth {

class JwksFile : public VerificationKeys {
 public:
  // Throws std::runtime_error when the file cannot be read or is no JWKS.
  explicit JwksFile(const std::string& url);
  std::shared_ptr<const JwkSet> current() override;
  void missing_key(const std::string&) override {}
  std::string location() const override { return path_; }

 private:
  std::string path_;
  std::mutex mu_;
  int64_t mtime_ns_ = -1;
  std::shared_ptr<const JwkSet> keys_;
};

struct JwksEndpointOptions {
  std::string url;
  int64_t refresh_ms = 3600000;
  int64_t retry_backoff_ms = 100;
  int64_t retry_backoff_max_ms = 10000;
  HttpGetOptions http;
};

class JwksEndpoint : public VerificationKeys {
 public:
  using Fetch = std::function<HttpGetResult(const std::string& url)>;
  using Clock = std::function<int64_t()>;  // monotonic ms, for the once-a-minute rule per key id
  explicit JwksEndpoint(JwksEndpointOptions options, Fetch fetch = nullptr, Clock clock = nullptr);
  ~JwksEndpoint() override;
  JwksEndpoint(const JwksEndpoint&) = delete;
  JwksEndpoint& operator=(const JwksEndpoint&) = delete;

  // The first fetch (blocking, no retry, as Kafka's init) and the refresher
  // thread; throws std::runtime_error when the first fetch fails.
  void start();
  std::shared_ptr<const JwkSet> current() override;
  void missing_key(const std::string& kid) override;
  std::string location() const override { return options_.url; }
  // Refreshes done so far (for tests).
  int64_t refreshes() const;

 private:
  std::shared_ptr<const JwkSet> fetch_once(std::string& why);
  void refresh();
  void run();

  JwksEndpointOptions options_;
  Fetch fetch_;
  Clock clock_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;
  bool expedite_ = false;
  int64_t refreshes_ = 0;
  std::shared_ptr<const JwkSet> keys_;
  std::list<std::string> missing_order_;    // least recently asked first
  std::map<std::string, int64_t> missing_;  // key id -> when it may trigger a refresh again
  std::thread thread_;
};

// The source `options` names (a started JwksEndpoint or a JwksFile); throws
// std::runtime_error when the first read fails.
std::shared_ptr<VerificationKeys> open_verification_keys(const config::OAuthBearerJwtOptions& options);

}  // namespace skiff::oauth
