// What the SCRAM credential handlers (describe/alter_user_scram_credentials)
// share: Kafka's default message of the errors their error responses carry
// (ApiError.fromThrowable of the error's own exception).
#pragma once

#include <optional>
#include <string>

#include "protocol/error_codes.h"

namespace skiff::api {

inline std::optional<std::string> kafka_error_message(ErrorCode error) {
  switch (error) {
    case ErrorCode::kClusterAuthorizationFailed:
      return "Cluster authorization failed.";
    case ErrorCode::kUnknownServerError:
      return "The server experienced an unexpected error when processing the request.";
    default:
      return std::nullopt;
  }
}

}  // namespace skiff::api
