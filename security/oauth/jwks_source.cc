#include "security/oauth/jwks_source.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>

#include "common/log_escape.h"
#include "common/subsystem_logger.h"

namespace skiff::oauth {
namespace {

constexpr int64_t kMissingKeyIdRecheckMs = 60000;  // RefreshingHttpsJwks.MISSING_KEY_ID_CACHE_IN_FLIGHT_MS
constexpr size_t kMissingKeyIdMaxEntries = 16;
constexpr size_t kMissingKeyIdMaxLength = 1000;
constexpr int64_t kMaxJwksFileBytes = 1 << 20;

std::shared_ptr<spdlog::logger> logger() { return subsystem_logger("sasl"); }

int64_t steady_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// file:/p, file:///p and file://host/p name /p (Kafka takes the URI's raw path).
std::string file_path(const std::string& url) {
  std::string rest = url.substr(url.find(':') + 1);
  if (rest.starts_with("//")) {
    const auto slash = rest.find('/', 2);
    rest = slash == std::string::npos ? "" : rest.substr(slash);
  }
  return rest;
}

}  // namespace

JwksFile::JwksFile(const std::string& url) : path_(file_path(url)) {
  struct stat st {};
  if (::stat(path_.c_str(), &st) != 0)
    throw std::runtime_error(fmt::format(
        "The OAuth configuration option sasl.oauthbearer.jwks.endpoint.url contains a file ({}) that doesn't exist",
        path_));
  if (S_ISDIR(st.st_mode))
    throw std::runtime_error(
        fmt::format("The OAuth configuration option sasl.oauthbearer.jwks.endpoint.url "
                    "references a directory ({}), not a file",
                    path_));
  if (!current()) throw std::runtime_error(fmt::format("cannot read the JWKS file {}", path_));
}

std::shared_ptr<const JwkSet> JwksFile::current() {
  struct stat st {};
  std::lock_guard lock(mu_);
  if (::stat(path_.c_str(), &st) != 0) return keys_;
  const int64_t mtime = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  if (mtime == mtime_ns_ && keys_) return keys_;
  std::ifstream in(path_, std::ios::binary);
  std::string text(static_cast<size_t>(std::min<int64_t>(st.st_size, kMaxJwksFileBytes)), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  std::string why;
  std::vector<std::string> skipped;
  auto set = in && st.st_size <= kMaxJwksFileBytes ? parse_jwks(text, why, &skipped) : std::nullopt;
  if (!set) {
    logger()->warn("JWKS file {} could not be read ({}); keeping the keys read before", path_,
                   why.empty() ? "unreadable or over 1 MiB" : why);
    if (!keys_) return nullptr;
    mtime_ns_ = mtime;  // warn once per change
    return keys_;
  }
  for (const auto& s : skipped) logger()->warn("JWKS file {}: key skipped: {}", path_, escape_for_log(s));
  mtime_ns_ = mtime;
  keys_ = std::make_shared<const JwkSet>(std::move(*set));
  logger()->info("JWKS file {} read: {}", path_, escape_for_log(keys_->describe()));
  return keys_;
}

JwksEndpoint::JwksEndpoint(JwksEndpointOptions options, Fetch fetch, Clock clock)
    : options_(std::move(options)), fetch_(std::move(fetch)), clock_(std::move(clock)) {
  if (!fetch_) fetch_ = [http = options_.http](const std::string& url) { return http_get(url, http); };
  if (!clock_) clock_ = steady_ms;
}

JwksEndpoint::~JwksEndpoint() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::shared_ptr<const JwkSet> JwksEndpoint::fetch_once(std::string& why) {
  auto r = fetch_(options_.url);
  if (!r.ok) {
    why = r.error;
    return nullptr;
  }
  std::vector<std::string> skipped;
  auto set = parse_jwks(r.body, why, &skipped);
  if (!set) return nullptr;
  for (const auto& s : skipped) logger()->warn("JWKS {}: key skipped: {}", options_.url, escape_for_log(s));
  return std::make_shared<const JwkSet>(std::move(*set));
}

void JwksEndpoint::start() {
  std::string why;
  auto keys = fetch_once(why);
  if (!keys) throw std::runtime_error(fmt::format("Could not refresh JWKS from {}: {}", options_.url, why));
  {
    std::lock_guard lock(mu_);
    keys_ = std::move(keys);
  }
  logger()->info("JWKS {} fetched: {}; refreshed every {} ms", options_.url, escape_for_log(keys_->describe()),
                 options_.refresh_ms);
  thread_ = std::thread([this] { run(); });
}

std::shared_ptr<const JwkSet> JwksEndpoint::current() {
  std::lock_guard lock(mu_);
  return keys_;
}

int64_t JwksEndpoint::refreshes() const {
  std::lock_guard lock(mu_);
  return refreshes_;
}

void JwksEndpoint::missing_key(const std::string& kid) {
  if (kid.size() > kMissingKeyIdMaxLength) {
    logger()->warn("Key ID {} (trimmed to first {} characters out of {} total) was too long to cache",
                   escape_for_log(kid.substr(0, kMissingKeyIdMaxLength)), kMissingKeyIdMaxLength, kid.size());
    return;
  }
  {
    std::lock_guard lock(mu_);
    const int64_t now = clock_();
    auto it = missing_.find(kid);
    if (it != missing_.end() && it->second > now) return;
    missing_[kid] = now + kMissingKeyIdRecheckMs;
    missing_order_.remove(kid);
    missing_order_.push_back(kid);
    while (missing_order_.size() > kMissingKeyIdMaxEntries) {
      missing_.erase(missing_order_.front());
      missing_order_.pop_front();
    }
    expedite_ = true;
  }
  logger()->debug("JWKS {}: no key for key id {}; refreshing", options_.url, escape_for_log(kid));
  wake_.notify_all();
}

// Kafka's Retry: attempts until backoff.max.ms has passed, waiting
// backoff.ms * 2^(attempt-1) between them; the stop request ends the waits.
void JwksEndpoint::refresh() {
  const int64_t end = steady_ms() + options_.retry_backoff_max_ms;
  std::string first_error;
  for (int attempt = 1;; ++attempt) {
    std::string why;
    if (auto keys = fetch_once(why)) {
      std::lock_guard lock(mu_);
      for (const auto& k : keys->keys)
        if (missing_.erase(k.kid)) missing_order_.remove(k.kid);
      keys_ = std::move(keys);
      ++refreshes_;
      logger()->info("OAuth JWKS refresh of {} complete: {}", options_.url, escape_for_log(keys_->describe()));
      return;
    }
    if (first_error.empty()) first_error = why;
    const int64_t wait = std::min<int64_t>(options_.retry_backoff_ms << std::min(attempt - 1, 30), end - steady_ms());
    logger()->warn("OAuth JWKS refresh of {}: attempt {} failed: {}", options_.url, attempt, escape_for_log(why));
    if (wait <= 0) break;
    std::unique_lock lock(mu_);
    if (wake_.wait_for(lock, std::chrono::milliseconds(wait), [this] { return stop_; })) return;
  }
  std::lock_guard lock(mu_);
  ++refreshes_;
  logger()->warn("OAuth JWKS refresh of {} encountered an error; not updating local JWKS cache: {}", options_.url,
                 escape_for_log(first_error));
}

void JwksEndpoint::run() {
  auto next = std::chrono::steady_clock::now() + std::chrono::milliseconds(options_.refresh_ms);
  for (;;) {
    {
      std::unique_lock lock(mu_);
      wake_.wait_until(lock, next, [this] { return stop_ || expedite_; });
      if (stop_) return;
      expedite_ = false;
    }
    if (std::chrono::steady_clock::now() >= next) next += std::chrono::milliseconds(options_.refresh_ms);
    refresh();
  }
}

std::shared_ptr<VerificationKeys> open_verification_keys(const config::OAuthBearerJwtOptions& o) {
  if (o.jwks_endpoint_url.size() >= 5 && std::equal(o.jwks_endpoint_url.begin(), o.jwks_endpoint_url.begin() + 5,
                                                    "file:", [](char a, char b) { return std::tolower(a) == b; }))
    return std::make_shared<JwksFile>(o.jwks_endpoint_url);
  JwksEndpointOptions e;
  e.url = o.jwks_endpoint_url;
  e.refresh_ms = o.jwks_refresh_ms;
  e.retry_backoff_ms = o.jwks_retry_backoff_ms;
  e.retry_backoff_max_ms = o.jwks_retry_backoff_max_ms;
  e.http.truststore_location = o.truststore_location;
  e.http.truststore_certificates = o.truststore_certificates;
  e.http.verify_hostname = o.verify_hostname;
  auto endpoint = std::make_shared<JwksEndpoint>(e);
  endpoint->start();
  return endpoint;
}

}  // namespace skiff::oauth
