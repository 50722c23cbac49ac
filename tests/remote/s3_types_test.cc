// S3's answers parsed into values, the error type's classification, the
// endpoint and the two addressing styles, the retry policy's delays.
#include "remote/s3/s3_types.h"

#include <catch2/catch.hpp>
#include <cstdlib>

#include "remote/s3/credentials.h"
#include "remote/s3/endpoint.h"
#include "remote/s3/retry.h"
#include "remote/s3/s3_error.h"

using namespace skiff::remote::s3;

TEST_CASE("s3 errors: parsed from the XML body and classified") {
  auto e = service_error(404,
                         "<?xml version=\"1.0\"?><Error><Code>NoSuchBucket</Code><Message>The specified bucket does "
                         "not exist</Message><RequestId>R1</RequestId></Error>",
                         "hdr");
  CHECK(e.kind == S3ErrorKind::kService);
  CHECK(e.code == "NoSuchBucket");
  CHECK(e.request_id == "R1");
  CHECK_FALSE(e.retriable);
  e.operation = "GetObject";
  e.resource = "b/k";
  CHECK(e.describe() ==
        "GetObject b/k: NoSuchBucket (HTTP 404): The specified bucket does not exist [request id R1] "
        "(not retriable)");
  for (const char* code : {"AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch", "NoSuchKey"})
    CHECK_FALSE(retriable_code(code, 403));
  for (const char* code : {"SlowDown", "RequestTimeout", "InternalError"}) CHECK(retriable_code(code, 400));
  CHECK(retriable_code("", 502));
  CHECK(retriable_code("", 429));
  auto head = service_error(404, "", "rid");
  CHECK(head.code == "NotFound");
  CHECK(head.request_id == "rid");
  auto garbage = service_error(503, "<Error><Code>Slow", "");
  CHECK(garbage.code == "ServiceUnavailable");
  CHECK(garbage.retriable);
  CHECK(transport_error(S3ErrorKind::kConnection, "refused").retriable);
  CHECK(transport_error(S3ErrorKind::kTimeout, "slow").retriable);
  CHECK_FALSE(transport_error(S3ErrorKind::kConfig, "bad").retriable);
}

TEST_CASE("s3 ListObjectsV2 answer") {
  auto page = parse_list_objects_v2(
      "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Name>b</Name><Prefix>p/</Prefix>"
      "<KeyCount>2</KeyCount><MaxKeys>2</MaxKeys><IsTruncated>true</IsTruncated>"
      "<Contents><Key>p/a b</Key><LastModified>2026-01-01T00:00:00.000Z</LastModified>"
      "<ETag>&quot;0cc175b9c0f1b6a831c399e269772661&quot;</ETag><Size>1</Size></Contents>"
      "<Contents><Key>p/&#x20AC;</Key><Size>12345678901</Size></Contents>"
      "<CommonPrefixes><Prefix>p/d/</Prefix></CommonPrefixes>"
      "<NextContinuationToken>tok+/=</NextContinuationToken></ListBucketResult>");
  REQUIRE(page);
  REQUIRE(page->objects.size() == 2);
  CHECK(page->objects[0].key == "p/a b");
  CHECK(page->objects[0].etag == "0cc175b9c0f1b6a831c399e269772661");
  CHECK(page->objects[1].key == "p/\xE2\x82\xAC");
  CHECK(page->objects[1].size == 12345678901ULL);
  CHECK(page->common_prefixes == std::vector<std::string>{"p/d/"});
  CHECK(page->truncated);
  CHECK(page->next_continuation_token == "tok+/=");
  CHECK_FALSE(parse_list_objects_v2("<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>"));
  CHECK_FALSE(
      parse_list_objects_v2("<ListBucketResult><Contents><Key>k</Key><Size>-1</Size></Contents></ListBucketResult>"));
  CHECK_FALSE(parse_list_objects_v2("<Other/>"));
  CHECK_FALSE(parse_list_objects_v2("<ListBucketResult>"));
}

TEST_CASE("s3 multipart and delete answers, 200 with an Error body") {
  CHECK(parse_initiate_multipart("<InitiateMultipartUploadResult><Bucket>b</Bucket><Key>k</Key><UploadId>u-1</UploadId>"
                                 "</InitiateMultipartUploadResult>")
            .value() == "u-1");
  CHECK_FALSE(parse_initiate_multipart("<InitiateMultipartUploadResult/>"));
  CHECK(
      parse_complete_multipart("<CompleteMultipartUploadResult><ETag>\"abc-3\"</ETag></CompleteMultipartUploadResult>")
          .value() == "abc-3");
  auto err = parse_complete_multipart("<Error><Code>InternalError</Code><Message>m</Message></Error>");
  REQUIRE_FALSE(err);
  CHECK(err.error().code == "InternalError");
  CHECK(err.error().retriable);
  auto del = parse_delete_result(
      "<DeleteResult><Deleted><Key>a</Key></Deleted><Error><Key>b</Key><Code>AccessDenied</Code><Message>no</Message>"
      "</Error></DeleteResult>");
  REQUIRE(del);
  CHECK(del->deleted == std::vector<std::string>{"a"});
  REQUIRE(del->failed.size() == 1);
  CHECK(del->failed[0].code == "AccessDenied");
  auto mpu = parse_list_multipart_uploads(
      "<ListMultipartUploadsResult><IsTruncated>true</IsTruncated><NextKeyMarker>k</NextKeyMarker>"
      "<NextUploadIdMarker>u</NextUploadIdMarker><Upload><Key>k</Key><UploadId>u</UploadId>"
      "<Initiated>2026</Initiated></Upload></ListMultipartUploadsResult>");
  REQUIRE(mpu);
  CHECK(mpu->uploads.size() == 1);
  CHECK(mpu->uploads[0].upload_id == "u");
  CHECK(mpu->truncated);
  CHECK(content_range_total("bytes 0-9/100") == 100u);
  CHECK_FALSE(content_range_total("bytes 0-9/*"));
}

TEST_CASE("s3 request bodies escape keys") {
  CHECK(delete_objects_body({"a&b", "<c>"}).find("<Object><Key>a&amp;b</Key></Object><Object><Key>&lt;c&gt;</Key>") !=
        std::string::npos);
  CHECK(complete_multipart_body({{1, "e1"}, {2, "e2"}})
            .find("<Part><PartNumber>1</PartNumber><ETag>\"e1\"</ETag></Part><Part><PartNumber>2</PartNumber>") !=
        std::string::npos);
  CHECK(ByteRange{5, 9}.header() == "bytes=5-9");
  CHECK(ByteRange{5, std::nullopt}.header() == "bytes=5-");
}

TEST_CASE("s3 endpoint parsing and addressing styles") {
  auto e = parse_endpoint("http://127.0.0.1:7070");
  REQUIRE(e);
  CHECK_FALSE(e->tls);
  CHECK(e->port == "7070");
  auto path = target_of(*e, true, "bkt", "dir/a b+c=~\xC3\xA9");
  CHECK(path.connect_host == "127.0.0.1");
  CHECK(path.host_header == "127.0.0.1:7070");
  CHECK(path.canonical_uri == "/bkt/dir/a%20b%2Bc%3D~%C3%A9");
  CHECK(target_of(*e, true, "bkt", "").canonical_uri == "/bkt");
  auto s = parse_endpoint("https://s3.eu-west-1.amazonaws.com/");
  REQUIRE(s);
  CHECK(s->tls);
  CHECK(s->port == "443");
  auto vh = target_of(*s, false, "bkt", "k");
  CHECK(vh.connect_host == "bkt.s3.eu-west-1.amazonaws.com");
  CHECK(vh.host_header == "bkt.s3.eu-west-1.amazonaws.com");
  CHECK(vh.canonical_uri == "/k");
  CHECK(target_of(*s, false, "bkt", "").canonical_uri == "/");
  auto v6 = parse_endpoint("http://[::1]:9000/base");
  REQUIRE(v6);
  CHECK(v6->host == "::1");
  CHECK(v6->base_path == "/base");
  CHECK(target_of(*v6, true, "b", "k").host_header == "[::1]:9000");
  CHECK(target_of(*v6, true, "b", "k").canonical_uri == "/base/b/k");
  for (const char* bad :
       {"ftp://h", "http://", "http://h:0", "http://h:99999", "http://h:x", "http://u@h", "http://h/?q", "http://[::1"})
    CHECK_FALSE(parse_endpoint(bad));
}

TEST_CASE("s3 retry backoff grows exponentially, is capped, and jitters within the ceiling") {
  RetryPolicy p;
  p.base_delay = std::chrono::milliseconds(100);
  p.max_delay = std::chrono::milliseconds(1000);
  CHECK(backoff_ceiling(p, 1).count() == 100);
  CHECK(backoff_ceiling(p, 2).count() == 200);
  CHECK(backoff_ceiling(p, 4).count() == 800);
  CHECK(backoff_ceiling(p, 5).count() == 1000);
  CHECK(backoff_ceiling(p, 60).count() == 1000);
  CHECK(backoff_delay(p, 3, 0.0).count() == 0);
  CHECK(backoff_delay(p, 3, 0.5).count() == 200);
  CHECK(backoff_delay(p, 3, 1.0).count() < 400);
}

TEST_CASE("s3 credentials: explicit first, else the AWS environment") {
  ::setenv("AWS_ACCESS_KEY_ID", "envkey", 1);
  ::setenv("AWS_SECRET_ACCESS_KEY", "envsecret", 1);
  ::setenv("AWS_SESSION_TOKEN", "envtoken", 1);
  auto explicit_pair = resolve_credentials("k", "s");
  REQUIRE(explicit_pair);
  CHECK(explicit_pair->access_key_id == "k");
  CHECK(explicit_pair->session_token.empty());
  auto env = resolve_credentials("k", "");  // half given: the environment's pair
  REQUIRE(env);
  CHECK(env->access_key_id == "envkey");
  CHECK(env->secret_access_key == "envsecret");
  CHECK(env->session_token == "envtoken");
  ::unsetenv("AWS_SECRET_ACCESS_KEY");
  CHECK_FALSE(resolve_credentials("", ""));
  ::unsetenv("AWS_ACCESS_KEY_ID");
  ::unsetenv("AWS_SESSION_TOKEN");
}
