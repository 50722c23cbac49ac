// The S3 client: one bucket of an S3-compatible store, spoken to with SigV4
// header signing over HttpClient. Every request carries x-amz-content-sha256
// with the body's real SHA-256 (never UNSIGNED-PAYLOAD); bodies that S3 can
// check also carry Content-MD5 (PutObject, UploadPart, DeleteObjects), and
// the client checks what comes back: a single PUT's ETag is the body's MD5, a
// completed multipart upload's ETag is MD5(part MD5s)-N, a full GET's body
// hashes to its ETag when the ETag is an MD5.
//
// Every operation is retried on retriable errors (S3Error::retriable) under
// RetryPolicy and is idempotent on retry: PUTs rewrite the same bytes,
// DELETE of a missing key succeeds, Complete that finds its upload gone checks
// the object's ETag instead, Abort of a missing upload succeeds.
//
// Threads: every method may be called from several threads at once (the
// connection pool is shared; the request counters are atomic). Blocking:
// call only from threads of its own.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"
#include "remote/s3/credentials.h"
#include "remote/s3/endpoint.h"
#include "remote/s3/http_client.h"
#include "remote/s3/request_counters.h"
#include "remote/s3/retry.h"
#include "remote/s3/s3_error.h"
#include "remote/s3/s3_types.h"

namespace skiff::remote::s3 {

struct S3Config {
  std::string endpoint_url;  // storage.s3.endpoint.url
  std::string bucket;        // storage.s3.bucket.name
  std::string region = "us-east-1";
  bool path_style = false;  // storage.s3.path.style.access.enabled
  Credentials credentials;
  HttpOptions http;
  RetryPolicy retry;
};

class S3Client {
 public:
  // A client, or a kConfig error (bad endpoint URL, empty bucket or credentials).
  static Expected<std::unique_ptr<S3Client>, S3Error> create(S3Config config);

  Expected<void, S3Error> head_bucket();
  Expected<void, S3Error> create_bucket();  // for tests and set-up; BucketAlreadyOwnedByYou is success

  // The ETag. `claimed_md5_raw` empty: the body's MD5 is sent as Content-MD5
  // (tests pass another to see the server refuse it with BadDigest).
  Expected<std::string, S3Error> put_object(std::string_view key, std::string_view body,
                                            std::string_view claimed_md5_raw = {});
  Expected<GetResult, S3Error> get_object(std::string_view key, const std::optional<ByteRange>& range = {});
  Expected<ObjectInfo, S3Error> head_object(std::string_view key);
  Expected<void, S3Error> delete_object(std::string_view key);
  // Any number of keys, sent 1000 a request; per-key failures in the result.
  Expected<DeleteResult, S3Error> delete_objects(const std::vector<std::string>& keys);
  Expected<ListPage, S3Error> list_objects_v2(const ListOptions& options);
  // Every object under `prefix`, following continuation tokens (page_size 0: server default).
  Expected<std::vector<ObjectInfo>, S3Error> list_all(std::string_view prefix, int page_size = 0, int* pages = nullptr);

  Expected<std::string, S3Error> create_multipart_upload(std::string_view key);  // the UploadId
  Expected<PartInfo, S3Error> upload_part(std::string_view key, std::string_view upload_id, int part_number,
                                          std::string_view body);
  // `part_md5s_raw`: the raw MD5 of each part, to check the result's ETag (empty: no check).
  Expected<std::string, S3Error> complete_multipart_upload(std::string_view key, std::string_view upload_id,
                                                           const std::vector<PartInfo>& parts,
                                                           const std::vector<std::string>& part_md5s_raw);
  Expected<void, S3Error> abort_multipart_upload(std::string_view key, std::string_view upload_id);
  Expected<MultipartPage, S3Error> list_multipart_uploads(std::string_view prefix, std::string_view key_marker = {},
                                                          std::string_view upload_id_marker = {});
  // Uploads `body` in parts of `part_size` (>= 5 MiB but the last; at most
  // 10,000 parts), aborting the upload on failure.
  Expected<std::string, S3Error> put_object_multipart(std::string_view key, std::string_view body, size_t part_size);

  const S3Config& config() const { return config_; }
  // What this client sent, by operation (every attempt; request_counters.h).
  const S3RequestCounters& counters() const { return counters_; }
  HttpClient& http() { return *http_; }
  // The clock used for x-amz-date (tests pin it); unix seconds.
  void set_clock(std::function<long long()> now) { now_ = std::move(now); }
  // The sleep between retries (tests record it instead).
  void set_sleep(std::function<void(std::chrono::milliseconds)> sleep) { sleep_ = std::move(sleep); }

 private:
  struct Request {
    const char* operation;
    const char* method;
    std::string_view key;  // empty: the bucket
    NameValues query;
    NameValues headers;
    std::string_view body;
    int expect_status = 200;  // also accepted: any 2xx
  };

  S3Client(S3Config config, Endpoint endpoint);
  Expected<HttpResponse, S3Error> execute(const Request& r);
  Expected<HttpResponse, S3Error> attempt(const Request& r, const std::string& payload_hash);
  Expected<DeleteResult, S3Error> delete_batch(const std::vector<std::string>& keys);
  S3Error annotate(S3Error e, const Request& r) const;

  S3Config config_;
  Endpoint endpoint_;
  std::unique_ptr<HttpClient> http_;
  std::function<long long()> now_;
  std::function<void(std::chrono::milliseconds)> sleep_;
  S3RequestCounters counters_;
};

}  // namespace skiff::remote::s3
