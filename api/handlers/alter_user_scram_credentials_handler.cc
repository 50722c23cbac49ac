#include "api/handlers/alter_user_scram_credentials_handler.h"

#include <cstring>
#include <map>
#include <set>

#include "api/api_log.h"
#include "api/authorize.h"
#include "api/handlers/scram_wire.h"
#include "common/log_escape.h"
#include "security/sasl/scram_store.h"

namespace skiff::api {
namespace {

using ScramRequest = protocol::AlterUserScramCredentialsRequest;
using sasl::ScramCredentialChange;

struct Refusal {
  ErrorCode error;
  std::string message;
};
using Validity = std::optional<Refusal>;  // nullopt: valid

constexpr std::string_view kTwice = "A user credential cannot be altered twice in the same request";

Validity check_name_and_mechanism(const std::string& name, int8_t mechanism) {
  if (name.empty()) return Refusal{ErrorCode::kUnacceptableCredential, "Username must not be empty"};
  if (!sasl::mechanism_from_code(mechanism))
    return Refusal{ErrorCode::kUnsupportedSaslMechanism, "Unknown SCRAM mechanism"};
  return std::nullopt;
}

Validity check_deletion(const ScramRequest::ScramCredentialDeletion& d, const sasl::ScramCredentialStore& store) {
  if (auto refusal = check_name_and_mechanism(d.name, d.mechanism)) return refusal;
  if (!store.lookup(d.name, *sasl::mechanism_from_code(d.mechanism)))
    return Refusal{ErrorCode::kResourceNotFound, "Attempt to delete a user credential that does not exist"};
  return std::nullopt;
}

Validity check_upsertion(const ScramRequest::ScramCredentialUpsertion& u) {
  if (auto refusal = check_name_and_mechanism(u.name, u.mechanism)) return refusal;
  if (u.iterations < sasl::kScramMinIterations)
    return Refusal{ErrorCode::kUnacceptableCredential, "Too few iterations"};
  if (u.iterations > sasl::kScramMaxIterations)
    return Refusal{ErrorCode::kUnacceptableCredential, "Too many iterations"};
  if (u.salt.empty()) return Refusal{ErrorCode::kUnacceptableCredential, "Salt must not be empty"};
  if (u.salted_password.empty())
    return Refusal{ErrorCode::kUnacceptableCredential, "Salted password must not be empty"};
  return std::nullopt;
}

ScramCredentialChange upsert(const ScramRequest::ScramCredentialUpsertion& u) {
  auto m = *sasl::mechanism_from_code(u.mechanism);
  std::string_view salted(reinterpret_cast<const char*>(u.salted_password.data()), u.salted_password.size());
  return {u.name, m,
          sasl::credential_from_salted_password(m, salted, u.iterations, std::string(u.salt.begin(), u.salt.end()))};
}

// The request sorted per user, as ScramControlManager.alterCredentials: one
// valid change per user, or the reason it is refused.
class Plan {
 public:
  void deletion(const ScramRequest::ScramCredentialDeletion& d, const sasl::ScramCredentialStore& store) {
    if (!first_sight(d.name)) return;
    if (auto refusal = check_deletion(d, store))
      refused_[d.name] = std::move(*refusal);
    else
      changes_[d.name] = {d.name, *sasl::mechanism_from_code(d.mechanism), std::nullopt};
  }
  void upsertion(const ScramRequest::ScramCredentialUpsertion& u) {
    if (!first_sight(u.name)) return;
    if (auto refusal = check_upsertion(u))
      refused_[u.name] = std::move(*refusal);
    else
      changes_[u.name] = upsert(u);
  }
  std::vector<ScramCredentialChange> changes() const {
    std::vector<ScramCredentialChange> out;
    for (const auto& [user, change] : changes_) out.push_back(change);
    return out;
  }
  const std::vector<std::string>& users() const { return users_; }
  const Refusal* refusal(const std::string& user) const {
    auto it = refused_.find(user);
    return it == refused_.end() ? nullptr : &it->second;
  }

 private:
  // False when the user was seen before: then it is refused as altered twice.
  bool first_sight(const std::string& user) {
    if (refused_.contains(user)) return false;
    if (changes_.erase(user)) {
      refused_[user] = {ErrorCode::kDuplicateResource, std::string(kTwice)};
      return false;
    }
    users_.push_back(user);
    return true;
  }

  std::vector<std::string> users_;  // in the order first named
  std::map<std::string, ScramCredentialChange> changes_;
  std::map<std::string, Refusal> refused_;
};

}  // namespace

void AlterUserScramCredentialsHandler::handle(ApiRequest& request, ScramRequest& body, Responder& out) {
  if (!authorized_cluster(services_, request, AclOperation::kAlter)) {
    out.send(error_response(body, ErrorCode::kClusterAuthorizationFailed));
    return;
  }
  Plan plan;
  for (const auto& d : body.deletions) plan.deletion(d, *services_.scram);
  for (const auto& u : body.upsertions) plan.upsertion(u);
  auto changes = plan.changes();
  int rc = changes.empty() ? 0 : services_.scram->apply(changes);
  if (rc) api_log().error("cannot store SCRAM credentials in {}: {}", services_.scram->where(), std::strerror(rc));
  for (const auto& c : changes)
    if (!rc)
      api_log().info("SCRAM credential {} for user {} {}", sasl::mechanism_name(c.mechanism), escaped(c.user),
                     c.credential ? "set" : "deleted");
  protocol::AlterUserScramCredentialsResponse resp;
  for (const auto& user : plan.users()) {
    auto& r = resp.results.emplace_back();
    r.user = user;
    r.error_message = std::nullopt;
    if (const Refusal* refusal = plan.refusal(user)) {
      r.error_code = code(refusal->error);
      r.error_message = refusal->message;
    } else if (rc) {
      r.error_code = code(ErrorCode::kUnknownServerError);
      r.error_message = "Unable to store the SCRAM credential";
    }
  }
  out.send(resp);
}

// Kafka's AlterUserScramCredentialsRequest.getErrorResponse: the error for
// each distinct user, in name order.
protocol::AlterUserScramCredentialsResponse AlterUserScramCredentialsHandler::error_response(const ScramRequest& body,
                                                                                             ErrorCode error) {
  std::set<std::string> users;
  for (const auto& d : body.deletions) users.insert(d.name);
  for (const auto& u : body.upsertions) users.insert(u.name);
  protocol::AlterUserScramCredentialsResponse resp;
  for (const auto& user : users) {
    auto& r = resp.results.emplace_back();
    r.user = user;
    r.error_code = code(error);
    r.error_message = kafka_error_message(error);
  }
  return resp;
}

}  // namespace skiff::api
