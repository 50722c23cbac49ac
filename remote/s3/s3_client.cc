#include "remote/s3/s3_client.h"

#include <random>
#include <thread>

#include "remote/s3/digest.h"

namespace skiff::remote::s3 {
namespace {

long long system_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

double jitter_unit() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return std::uniform_real_distribution<double>(0.0, 1.0)(rng);
}

}  // namespace

Expected<std::unique_ptr<S3Client>, S3Error> S3Client::create(S3Config config) {
  auto endpoint = parse_endpoint(config.endpoint_url);
  if (!endpoint) return unexpected(transport_error(S3ErrorKind::kConfig, endpoint.error()));
  if (config.bucket.empty()) return unexpected(transport_error(S3ErrorKind::kConfig, "no bucket name"));
  if (config.region.empty()) return unexpected(transport_error(S3ErrorKind::kConfig, "no region"));
  if (config.credentials.access_key_id.empty() || config.credentials.secret_access_key.empty())
    return unexpected(transport_error(S3ErrorKind::kConfig, "no S3 credentials (access key id and secret)"));
  if (config.retry.max_attempts < 1) config.retry.max_attempts = 1;
  return std::unique_ptr<S3Client>(new S3Client(std::move(config), std::move(*endpoint)));
}

S3Client::S3Client(S3Config config, Endpoint endpoint)
    : config_(std::move(config)),
      endpoint_(std::move(endpoint)),
      http_(std::make_unique<HttpClient>(config_.http)),
      now_(system_now),
      sleep_([](std::chrono::milliseconds d) { std::this_thread::sleep_for(d); }) {}

S3Error S3Client::annotate(S3Error e, const Request& r) const {
  e.operation = r.operation;
  e.resource = config_.bucket + (r.key.empty() ? "" : "/" + std::string(r.key));
  return e;
}

Expected<HttpResponse, S3Error> S3Client::attempt(const Request& r, const std::string& payload_hash) {
  const Target t = target_of(endpoint_, config_.path_style, config_.bucket, r.key);
  SigningInput in;
  in.method = r.method;
  in.canonical_uri = t.canonical_uri;
  in.query = r.query;
  in.payload_hash = payload_hash;
  in.amz_date = amz_date_of(now_());
  in.region = config_.region;
  in.headers = r.headers;
  in.headers.emplace_back("host", t.host_header);
  in.headers.emplace_back("x-amz-content-sha256", payload_hash);
  in.headers.emplace_back("x-amz-date", in.amz_date);
  if (!config_.credentials.session_token.empty())
    in.headers.emplace_back("x-amz-security-token", config_.credentials.session_token);
  const Signature sig = sign_v4(in, config_.credentials.access_key_id, config_.credentials.secret_access_key);
  HttpRequest req;
  req.method = r.method;
  const std::string query = canonical_query(r.query);
  req.target = t.canonical_uri + (query.empty() ? "" : "?" + query);
  req.headers = std::move(in.headers);
  req.headers.emplace_back("authorization", sig.authorization);
  req.headers.emplace_back("user-agent", "skiff-s3");
  req.body = r.body;
  auto res = http_->send({t.connect_host, endpoint_.port, endpoint_.tls}, req);
  counters_.record(r.operation, res && res->status >= 200 && res->status < 300, r.body.size(),
                   res ? res->body.size() : 0);
  if (!res) return unexpected(std::move(res.error()));
  if (res->status < 200 || res->status >= 300)
    return unexpected(service_error(res->status, res->body, res->header("x-amz-request-id")));
  return res;
}

Expected<HttpResponse, S3Error> S3Client::execute(const Request& r) {
  const std::string payload_hash = sha256_hex(r.body);
  for (int n = 1;; ++n) {
    auto res = attempt(r, payload_hash);
    if (res) return res;
    if (!res.error().retriable || n >= config_.retry.max_attempts) return unexpected(annotate(res.error(), r));
    sleep_(backoff_delay(config_.retry, n, jitter_unit()));
  }
}

Expected<void, S3Error> S3Client::head_bucket() {
  auto r = execute({"HeadBucket", "HEAD", {}, {}, {}, {}});
  if (!r) return unexpected(std::move(r.error()));
  return {};
}

Expected<void, S3Error> S3Client::create_bucket() {
  auto r = execute({"CreateBucket", "PUT", {}, {}, {}, {}});
  if (!r && r.error().code != "BucketAlreadyOwnedByYou") return unexpected(std::move(r.error()));
  return {};
}

}  // namespace skiff::remote::s3
