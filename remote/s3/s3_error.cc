#include "remote/s3/s3_error.h"

#include "remote/s3/xml.h"

namespace skiff::remote::s3 {
namespace {

// The code a body-less error answer (HEAD) stands for.
std::string code_of_status(int status) {
  switch (status) {
    case 301:
      return "PermanentRedirect";
    case 400:
      return "BadRequest";
    case 403:
      return "Forbidden";
    case 404:
      return "NotFound";
    case 409:
      return "Conflict";
    case 412:
      return "PreconditionFailed";
    case 416:
      return "InvalidRange";
    case 429:
      return "TooManyRequests";
    case 500:
      return "InternalError";
    case 503:
      return "ServiceUnavailable";
    default:
      return "HTTP" + std::to_string(status);
  }
}

}  // namespace

bool retriable_code(std::string_view code, int http_status) {
  static constexpr std::string_view kRetriable[] = {
      "SlowDown",   "RequestTimeout",      "RequestTimeTooSkewed", "InternalError",   "ServiceUnavailable",
      "Throttling", "ThrottlingException", "RequestThrottled",     "TooManyRequests", "RequestLimitExceeded"};
  for (auto c : kRetriable)
    if (code == c) return true;
  return http_status >= 500 || http_status == 429;
}

std::string S3Error::describe() const {
  std::string out = operation;
  if (!resource.empty()) out += (out.empty() ? "" : " ") + resource;
  if (!out.empty()) out += ": ";
  if (!code.empty()) out += code;
  if (http_status != 0) out += " (HTTP " + std::to_string(http_status) + ")";
  if (!message.empty()) out += (code.empty() && http_status == 0 ? "" : ": ") + message;
  if (!request_id.empty()) out += " [request id " + request_id + "]";
  out += retriable ? " (retriable)" : " (not retriable)";
  return out;
}

S3Error transport_error(S3ErrorKind kind, std::string message) {
  S3Error e;
  e.kind = kind;
  e.message = std::move(message);
  e.retriable = kind == S3ErrorKind::kConnection || kind == S3ErrorKind::kTimeout;
  return e;
}

S3Error service_error(int http_status, std::string_view body, std::string_view request_id_header) {
  S3Error e;
  e.kind = S3ErrorKind::kService;
  e.http_status = http_status;
  e.request_id = std::string(request_id_header);
  if (!body.empty()) {
    XmlLimits limits;
    limits.max_bytes = 1u << 20;
    if (auto doc = parse_xml(body, limits); doc && doc->name == "Error") {
      e.code = doc->child_text("Code").value_or("");
      e.message = doc->child_text("Message").value_or("");
      if (auto id = doc->child_text("RequestId"); id && !id->empty()) e.request_id = *id;
    }
  }
  if (e.code.empty()) e.code = code_of_status(http_status);
  e.retriable = retriable_code(e.code, http_status);
  return e;
}

}  // namespace skiff::remote::s3
