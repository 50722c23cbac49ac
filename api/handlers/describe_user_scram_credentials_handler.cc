#include "api/handlers/describe_user_scram_credentials_handler.h"

#include <map>

#include "api/authorize.h"
#include "api/handlers/scram_wire.h"
#include "security/sasl/scram_store.h"

namespace skiff::api {
namespace {

using UserResult = protocol::DescribeUserScramCredentialsResponse::DescribeUserScramCredentialsResult;

UserResult described(const std::string& user, const std::vector<sasl::ScramCredentialInfo>& infos) {
  UserResult r;
  r.user = user;
  r.error_message = std::nullopt;
  for (const auto& info : infos) {
    auto& c = r.credential_infos.emplace_back();
    c.mechanism = static_cast<int8_t>(info.mechanism);
    c.iterations = info.iterations;
  }
  return r;
}

UserResult user_failed(const std::string& user, ErrorCode error, std::string message) {
  UserResult r;
  r.user = user;
  r.error_code = code(error);
  r.error_message = std::move(message);
  return r;
}

}  // namespace

void DescribeUserScramCredentialsHandler::handle(ApiRequest& request,
                                                 protocol::DescribeUserScramCredentialsRequest& body, Responder& out) {
  if (!authorized_cluster(services_, request, AclOperation::kDescribe)) {
    out.send(error_response(body, ErrorCode::kClusterAuthorizationFailed));
    return;
  }
  protocol::DescribeUserScramCredentialsResponse resp;
  resp.error_message = std::nullopt;
  if (!body.users || body.users->empty()) {
    for (const auto& [user, infos] : services_.scram->describe()) resp.results.push_back(described(user, infos));
    out.send(resp);
    return;
  }
  std::vector<std::string> names;
  std::map<std::string, int> times_named;
  for (const auto& u : *body.users)
    if (times_named[u.name]++ == 0) names.push_back(u.name);
  auto found = services_.scram->describe(names);
  for (const auto& name : names) {
    auto it = found.find(name);
    if (times_named[name] > 1)
      resp.results.push_back(
          user_failed(name, ErrorCode::kDuplicateResource,
                      "Cannot describe SCRAM credentials for the same user twice in a single request: " + name));
    else if (it == found.end())
      resp.results.push_back(user_failed(name, ErrorCode::kResourceNotFound,
                                         "Attempt to describe a user credential that does not exist: " + name));
    else
      resp.results.push_back(described(name, it->second));
  }
  out.send(resp);
}

// Kafka's DescribeUserScramCredentialsRequest.getErrorResponse: the error at
// the top and once per named user (its name left empty, as Kafka's).
protocol::DescribeUserScramCredentialsResponse DescribeUserScramCredentialsHandler::error_response(
    const protocol::DescribeUserScramCredentialsRequest& body, ErrorCode error) {
  protocol::DescribeUserScramCredentialsResponse resp;
  resp.error_code = code(error);
  resp.error_message = kafka_error_message(error);
  if (body.users)
    for (size_t i = 0; i < body.users->size(); ++i)
      resp.results.push_back(user_failed("", error, resp.error_message.value_or("")));
  return resp;
}

}  // namespace skiff::api
