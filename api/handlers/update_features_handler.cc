#include "api/handlers/update_features_handler.h"

#include "api/authorize.h"
#include "api/feature_levels.h"

namespace skiff::api {
namespace {

using protocol::UpdateFeaturesRequest;
using protocol::UpdateFeaturesResponse;

constexpr int8_t kUpgrade = 1, kSafeDowngrade = 2;

std::vector<FeatureLevels::Update> updates_of(const UpdateFeaturesRequest& body, int16_t version) {
  std::vector<FeatureLevels::Update> out;
  for (const auto& u : body.feature_updates) {
    // v0 has AllowDowngrade where v1+ has the upgrade type.
    const int8_t type = version == 0 ? (u.allow_downgrade ? kSafeDowngrade : kUpgrade) : u.upgrade_type;
    out.push_back({u.feature, u.max_version_level, type});
  }
  return out;
}

}  // namespace

// Kafka's QuorumController.updateFeatures: one error for the whole request,
// or success with (v0-1) a NONE result per feature.
void UpdateFeaturesHandler::handle(ApiRequest& request, UpdateFeaturesRequest& body, Responder& out) {
  if (!authorized_cluster(services_, request, AclOperation::kAlter)) {  // as ControllerApis
    out.send(error_response(body, ErrorCode::kClusterAuthorizationFailed));
    return;
  }
  const auto refusal =
      services_.features->apply(updates_of(body, request.api_version()), body.validate_only, services_.broker.node_id);
  UpdateFeaturesResponse resp;
  resp.error_message = std::nullopt;
  if (refusal) {
    resp.error_code = code(refusal->code);
    resp.error_message =
        "The update failed for all features since the following feature had an error: " + refusal->message;
  } else if (request.api_version() <= 1) {
    for (const auto& u : body.feature_updates) {
      UpdateFeaturesResponse::UpdatableFeatureResult r;
      r.feature = u.feature;
      r.error_code = 0;
      r.error_message = "NONE";  // Errors.NONE.message(), as Kafka sets it
      resp.results.push_back(std::move(r));
    }
  }
  out.send(resp);
}

UpdateFeaturesResponse UpdateFeaturesHandler::error_response(const UpdateFeaturesRequest&, ErrorCode error) {
  UpdateFeaturesResponse resp;
  resp.error_code = code(error);
  resp.error_message = std::nullopt;
  return resp;
}

}  // namespace skiff::api
