// S3Client against a scripted local server (fake_s3.h): what goes on the
// wire (payload hash, Content-MD5, strict encoding, a signature the server
// can recompute), retries (bounded, only when retriable, with backoff within
// its ceiling), 200 answers with an <Error> body, a lost Complete answer, a
// pooled connection the server closed, a read timeout.
#include "remote/s3/s3_client.h"

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <thread>
#include <vector>

#include "common/base64.h"
#include "remote/s3/digest.h"
#include "tests/remote/fake_s3.h"

using namespace skiff::remote::s3;
using skiff::remote::s3::testing::Answer;
using skiff::remote::s3::testing::FakeS3;
using skiff::remote::s3::testing::Request;

namespace {

const char* const kSecret = "fake/secret+key";

std::unique_ptr<S3Client> client_for(const FakeS3& server, std::vector<std::chrono::milliseconds>* sleeps,
                                     int attempts = 4) {
  S3Config c;
  c.endpoint_url = server.endpoint();
  c.bucket = "bkt";
  c.path_style = true;
  c.credentials = {"AKFAKE", kSecret, ""};
  c.retry.max_attempts = attempts;
  c.http.io_timeout = std::chrono::milliseconds(2000);
  auto client = std::move(S3Client::create(c).value());
  client->set_sleep([sleeps](std::chrono::milliseconds d) {
    if (sleeps) sleeps->push_back(d);
  });
  return client;
}

std::string field(const Request& r, const char* name) { return std::string(r[name]); }

Answer error_answer(int status, const std::string& code) {
  return {status, "<Error><Code>" + code + "</Code><Message>m</Message><RequestId>rq</RequestId></Error>", {}};
}

// The signature as a server recomputes it from what arrived.
std::string recomputed_signature(const Request& r) {
  const std::string target(r.target());
  const auto q = target.find('?');
  SigningInput in;
  in.method = std::string(r.method_string());
  in.canonical_uri = target.substr(0, q);
  in.payload_hash = field(r, "x-amz-content-sha256");
  in.amz_date = field(r, "x-amz-date");
  in.region = "us-east-1";
  const std::string auth = field(r, "authorization");
  const auto sh = auth.find("SignedHeaders=") + 14;
  std::string names = auth.substr(sh, auth.find(',', sh) - sh) + ";";
  for (size_t p = 0, e; (e = names.find(';', p)) != std::string::npos; p = e + 1)
    in.headers.emplace_back(names.substr(p, e - p), field(r, names.substr(p, e - p).c_str()));
  // The query as sent is already canonical: sign_v4 re-encodes decoded pairs,
  // so hand it the pairs back decoded (only %XX escapes occur).
  if (q != std::string::npos) {
    std::string qs = target.substr(q + 1) + "&";
    for (size_t p = 0, e; (e = qs.find('&', p)) != std::string::npos; p = e + 1) {
      const std::string kv = qs.substr(p, e - p);
      const auto eq = kv.find('=');
      auto dec = [](std::string s) {
        std::string o;
        for (size_t i = 0; i < s.size(); ++i) {
          if (s[i] == '%' && i + 2 < s.size() + 1) {
            o.push_back(static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16)));
            i += 2;
          } else {
            o.push_back(s[i]);
          }
        }
        return o;
      };
      in.query.emplace_back(dec(kv.substr(0, eq)), dec(kv.substr(eq + 1)));
    }
  }
  return sign_v4(in, "AKFAKE", kSecret).signature;
}

}  // namespace

TEST_CASE("s3 client sends the body's SHA-256 and MD5, encodes strictly, and signs what it sends") {
  FakeS3 server([](const Request& r) { return Answer{200, "", {{"ETag", "\"" + hex_lower(md5(r.body())) + "\""}}}; });
  auto c = client_for(server, nullptr);
  REQUIRE(c->put_object("dir/a b+c=\xC3\xA9~!", "payload").value() == hex_lower(md5("payload")));
  const auto seen = server.seen();
  REQUIRE(seen.size() == 1);
  const Request& r = seen[0];
  CHECK(r.target() == "/bkt/dir/a%20b%2Bc%3D%C3%A9~%21");
  CHECK(field(r, "x-amz-content-sha256") == sha256_hex("payload"));
  CHECK(field(r, "content-md5") == skiff::base64_encode(md5("payload")));
  const std::string auth = field(r, "authorization");
  CHECK(auth.find("SignedHeaders=content-md5;host;x-amz-content-sha256;x-amz-date,") != std::string::npos);
  CHECK(auth.substr(auth.size() - 64) == recomputed_signature(r));
}

TEST_CASE("s3 client list_all follows continuation tokens, sent strictly encoded and signed") {
  FakeS3 server([](const Request& r) {
    const bool first = std::string(r.target()).find("continuation-token") == std::string::npos;
    std::string body = "<ListBucketResult>";
    body += first ? "<Contents><Key>p/1</Key><Size>1</Size></Contents><IsTruncated>true</IsTruncated>"
                    "<NextContinuationToken>t+/=k</NextContinuationToken>"
                  : "<Contents><Key>p/2</Key><Size>2</Size></Contents><IsTruncated>false</IsTruncated>";
    return Answer{200, body + "</ListBucketResult>", {}};
  });
  auto c = client_for(server, nullptr);
  int pages = 0;
  auto all = c->list_all("p/", 1, &pages);
  REQUIRE(all);
  REQUIRE(all->size() == 2);
  CHECK((*all)[1].key == "p/2");
  CHECK(pages == 2);
  const auto seen = server.seen();
  REQUIRE(seen.size() == 2);
  CHECK(seen[0].target() == "/bkt?list-type=2&max-keys=1&prefix=p%2F");
  CHECK(seen[1].target() == "/bkt?continuation-token=t%2B%2F%3Dk&list-type=2&max-keys=1&prefix=p%2F");
  const std::string auth = field(seen[1], "authorization");
  CHECK(auth.substr(auth.size() - 64) == recomputed_signature(seen[1]));
  CHECK(server.connections() == 1);
}

TEST_CASE("s3 client retries SlowDown with backoff within its ceiling, then succeeds") {
  std::atomic<int> n{0};
  FakeS3 server([&](const Request&) { return ++n <= 2 ? error_answer(503, "SlowDown") : Answer{200, "", {}}; });
  std::vector<std::chrono::milliseconds> sleeps;
  auto c = client_for(server, &sleeps);
  REQUIRE(c->head_bucket());
  CHECK(server.seen().size() == 3);
  REQUIRE(sleeps.size() == 2);
  CHECK(sleeps[0] < std::chrono::milliseconds(100));
  CHECK(sleeps[1] < std::chrono::milliseconds(200));
}

TEST_CASE("s3 client gives up after max_attempts, and never retries AccessDenied") {
  FakeS3 server([](const Request& r) {
    return std::string(r.target()).starts_with("/bkt/denied") ? error_answer(403, "AccessDenied")
                                                              : error_answer(500, "InternalError");
  });
  std::vector<std::chrono::milliseconds> sleeps;
  auto c = client_for(server, &sleeps, 3);
  auto failed = c->get_object("k");
  REQUIRE_FALSE(failed);
  CHECK(failed.error().code == "InternalError");
  CHECK(failed.error().retriable);
  CHECK(failed.error().describe().starts_with("GetObject bkt/k: InternalError (HTTP 500): m [request id rq]"));
  CHECK(server.seen().size() == 3);
  CHECK(sleeps.size() == 2);
  auto denied = c->get_object("denied");
  REQUIRE_FALSE(denied);
  CHECK(denied.error().code == "AccessDenied");
  CHECK_FALSE(denied.error().retriable);
  CHECK(server.seen().size() == 4);
}

TEST_CASE("s3 client retries a Complete answered 200 with an InternalError body") {
  std::atomic<int> n{0};
  FakeS3 server([&](const Request&) {
    if (++n == 1) return Answer{200, "<Error><Code>InternalError</Code><Message>x</Message></Error>", {}};
    return Answer{200, "<CompleteMultipartUploadResult><ETag>\"e-1\"</ETag></CompleteMultipartUploadResult>", {}};
  });
  auto c = client_for(server, nullptr);
  auto first = c->complete_multipart_upload("k", "u", {{1, "p"}}, {});
  REQUIRE_FALSE(first);
  CHECK(first.error().code == "InternalError");
  CHECK(first.error().retriable);
  CHECK(c->complete_multipart_upload("k", "u", {{1, "p"}}, {}).value() == "e-1");
}

TEST_CASE("s3 client Complete whose upload is gone checks the object's ETag instead") {
  const std::string part_md5 = md5("part");
  const std::string expected = multipart_etag({part_md5});
  FakeS3 server([&](const Request& r) {
    if (r.method() == boost::beast::http::verb::head) return Answer{200, "", {{"ETag", "\"" + expected + "\""}}};
    return error_answer(404, "NoSuchUpload");
  });
  auto c = client_for(server, nullptr);
  CHECK(c->complete_multipart_upload("k", "u", {{1, hex_lower(part_md5)}}, {part_md5}).value() == expected);
  CHECK(c->abort_multipart_upload("k", "u"));  // gone already: success
}

TEST_CASE("s3 client replaces a pooled connection the server closed") {
  FakeS3 server([](const Request&) { return Answer{200, "", {}, /*close_after=*/true}; });
  auto c = client_for(server, nullptr, 1);  // no retries: the pool alone must cope
  REQUIRE(c->head_bucket());
  REQUIRE(c->head_bucket());
  REQUIRE(c->head_bucket());
  CHECK(server.seen().size() == 3);
  CHECK(c->http().connections_opened() == 3);
}

TEST_CASE("s3 client read timeout is a retriable timeout error") {
  FakeS3 server([](const Request&) { return Answer{200, "", {}, false, 600}; });
  S3Config cfg;
  cfg.endpoint_url = server.endpoint();
  cfg.bucket = "bkt";
  cfg.path_style = true;
  cfg.credentials = {"AKFAKE", kSecret, ""};
  cfg.retry.max_attempts = 1;
  cfg.http.io_timeout = std::chrono::milliseconds(100);
  auto c = std::move(S3Client::create(cfg).value());
  auto r = c->head_bucket();
  REQUIRE_FALSE(r);
  CHECK(r.error().kind == S3ErrorKind::kTimeout);
  CHECK(r.error().retriable);
}

TEST_CASE("s3 client refuses a configuration it cannot use") {
  S3Config cfg;
  cfg.endpoint_url = "ftp://x";
  cfg.bucket = "b";
  cfg.credentials = {"k", "s", ""};
  CHECK(S3Client::create(cfg).error().kind == S3ErrorKind::kConfig);
  cfg.endpoint_url = "http://127.0.0.1:1";
  cfg.credentials = {};
  CHECK(S3Client::create(cfg).error().message.find("credentials") != std::string::npos);
}

TEST_CASE("s3 client multipart refuses a part size of 0 or more than 10000 parts before any request") {
  FakeS3 server([](const Request&) { return Answer{500, "", {}}; });
  auto c = client_for(server, nullptr, 1);
  CHECK(c->put_object_multipart("k", "body", 0).error().kind == S3ErrorKind::kConfig);
  CHECK(c->put_object_multipart("k", std::string(10001, 'x'), 1).error().kind == S3ErrorKind::kConfig);
  CHECK(server.seen().empty());
}

TEST_CASE("s3 client multipart aborts the upload when a part fails") {
  FakeS3 server([](const Request& r) {
    const std::string target(r.target());
    if (target.find("uploads=") != std::string::npos)
      return Answer{200, "<InitiateMultipartUploadResult><UploadId>up1</UploadId></InitiateMultipartUploadResult>", {}};
    if (r.method() == boost::beast::http::verb::delete_) return Answer{204, "", {}};
    return error_answer(403, "AccessDenied");
  });
  auto c = client_for(server, nullptr, 1);
  auto r = c->put_object_multipart("k", "body", 5);
  REQUIRE_FALSE(r);
  CHECK(r.error().code == "AccessDenied");
  const auto seen = server.seen();
  REQUIRE(seen.size() == 3);
  CHECK(seen[1].target() == "/bkt/k?partNumber=1&uploadId=up1");
  CHECK(seen[2].method() == boost::beast::http::verb::delete_);
  CHECK(seen[2].target() == "/bkt/k?uploadId=up1");
}

namespace {

S3OperationCounts counts_of(const S3Client& c, std::string_view operation) {
  for (const auto& x : c.counters().snapshot())
    if (x.operation == operation) return x;
  FAIL("no operation " << operation);
  return {};
}

}  // namespace

TEST_CASE("s3 client counts every attempt by operation, failures and body bytes each way") {
  std::atomic<int> heads{0};
  FakeS3 server([&](const Request& r) {
    if (r.method_string() == "HEAD") return ++heads <= 2 ? error_answer(503, "SlowDown") : Answer{200, "", {}};
    if (r.method_string() == "GET") return Answer{200, "0123456789", {}};
    return Answer{200, "", {{"ETag", "\"" + hex_lower(md5(r.body())) + "\""}}};
  });
  auto c = client_for(server, nullptr);
  REQUIRE(c->put_object("a", "payload"));
  REQUIRE(c->get_object("a", ByteRange{0, 9}));
  REQUIRE(c->head_bucket());
  const auto put = counts_of(*c, "PutObject");
  CHECK(put.requests == 1);
  CHECK(put.errors == 0);
  CHECK(put.bytes_sent == 7);
  const auto get = counts_of(*c, "GetObject");
  CHECK(get.requests == 1);
  CHECK(get.bytes_received == 10);
  CHECK(get.bytes_sent == 0);
  const auto head = counts_of(*c, "HeadBucket");
  CHECK(head.requests == 3);  // two refused, retried
  CHECK(head.errors == 2);
  CHECK(counts_of(*c, "ListObjectsV2").requests == 0);
  CHECK(c->counters().snapshot().size() == kS3Operations.size());
}

TEST_CASE("s3 request counters add up across threads, and an unknown operation counts as Other") {
  S3RequestCounters counters;
  std::vector<std::thread> threads;
  threads.reserve(4);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&counters] {
      for (int i = 0; i < 10000; ++i) counters.record("UploadPart", i % 10 != 0, 100, 1);
    });
  for (auto& t : threads) t.join();
  counters.record("NoSuchOperation", true, 5, 6);
  const auto snap = counters.snapshot();
  const auto part = *std::find_if(snap.begin(), snap.end(), [](const auto& x) { return x.operation == "UploadPart"; });
  CHECK(part.requests == 40000);
  CHECK(part.errors == 4000);
  CHECK(part.bytes_sent == 4000000);
  CHECK(part.bytes_received == 40000);
  CHECK(snap.back().operation == "Other");
  CHECK(snap.back().requests == 1);
  CHECK(snap.back().bytes_received == 6);
}
