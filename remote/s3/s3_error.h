// The one error type of the S3 client: what failed, whether retrying can
// help, and enough to tell the operator (HTTP status, S3's Code, Message and
// RequestId from the XML error body). Values, any thread.
//
// Retriable: connection and timeout failures, HTTP 5xx, 429, and the S3 codes
// SlowDown, RequestTimeout, RequestTimeTooSkewed, InternalError,
// ServiceUnavailable, Throttling(Exception). Everything else (AccessDenied,
// NoSuchBucket, InvalidAccessKeyId, SignatureDoesNotMatch, NoSuchKey, 4xx,
// checksum mismatches reported by the server as BadDigest) is not.
#pragma once

#include <string>
#include <string_view>

namespace skiff::remote::s3 {

enum class S3ErrorKind {
  kConnection,  // resolve/connect/TLS/read/write failed, or the server closed mid-answer
  kTimeout,     // connect, read or write took longer than its timeout
  kService,     // the server answered with an error status
  kProtocol,    // the answer could not be understood (bad XML, missing fields)
  kIntegrity,   // the answer does not match what was sent (ETag / checksum)
  kConfig,      // the client's configuration is unusable (bad endpoint, no credentials)
};

struct S3Error {
  S3ErrorKind kind = S3ErrorKind::kConnection;
  int http_status = 0;     // 0 when no answer
  std::string code;        // S3's Code ("NoSuchBucket"), or empty
  std::string message;     // S3's Message, or our description
  std::string request_id;  // S3's RequestId (or x-amz-request-id)
  std::string operation;   // "PutObject", filled by the client
  std::string resource;    // "bucket/key", filled by the client
  bool retriable = false;

  // "PutObject bucket/key: NoSuchBucket (HTTP 404): The specified bucket does not exist [request id X]"
  std::string describe() const;
};

bool retriable_code(std::string_view code, int http_status);

S3Error transport_error(S3ErrorKind kind, std::string message);
// From an error answer: its status, body (S3's XML <Error>, possibly empty, as
// for HEAD) and x-amz-request-id header.
S3Error service_error(int http_status, std::string_view body, std::string_view request_id_header);

}  // namespace skiff::remote::s3
