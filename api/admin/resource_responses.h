// The response shape AlterConfigs and IncrementalAlterConfigs share: one
// result per requested resource, echoing its type and name.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "protocol/error_codes.h"

namespace skiff::api::admin {

template <class Response, class Request, class PerResource>
Response mirror_resources(const Request& body, PerResource&& answer) {
  Response resp;
  for (const auto& res : body.resources) {
    typename decltype(resp.responses)::value_type r = answer(res);
    r.resource_type = res.resource_type;
    r.resource_name = res.resource_name;
    resp.responses.push_back(std::move(r));
  }
  return resp;
}

template <class Result>
Result resource_result(ErrorCode e, std::optional<std::string> message) {
  Result r;
  r.error_code = code(e);
  r.error_message = std::move(message);
  return r;
}

}  // namespace skiff::api::admin
