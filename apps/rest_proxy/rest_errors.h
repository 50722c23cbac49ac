// The REST proxy's one error shape (issue 53), as Confluent's REST Proxy
// answers: HTTP status plus the body {"error_code": <int>, "message": "..."}
// in the content type of the API version asked (v2:
// application/vnd.kafka.v2+json; v3: application/json). Confluent's codes
// are the status followed by two digits for v2 (40401 topic not found,
// 40403 consumer instance not found, 42201 ..., 50002 Kafka retriable
// error) and the bare status for v3 (404). Every route throws RestError;
// the app's dispatcher turns it into the response (and an unexpected
// exception into 500 / 50001).
// Threads: values.
#pragma once

#include <stdexcept>
#include <string>

#include "network/http_message.h"

namespace skiff::restproxy {

struct RestError : std::runtime_error {
  RestError(int status, int error_code, const std::string& message)
      : std::runtime_error(message), status(status), error_code(error_code) {}
  int status;      // the HTTP status: 404
  int error_code;  // Confluent's code: 40401 (v2) or 404 (v3)
};

// `content_type`: the response's (v2's vnd.kafka.v2+json or application/json).
network::HttpResponse error_response(const RestError& e, const std::string& content_type);

}  // namespace skiff::restproxy
