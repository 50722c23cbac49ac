#include "api/handlers/update_features_handler.h"

#include "api/authorize.h"
#include "api/features.h"

namespace skiff::api {
namespace {

using protocol::UpdateFeaturesRequest;
using protocol::UpdateFeaturesResponse;

constexpr int8_t kUpgrade = 1, kSafeDowngrade = 2;

}  // namespace

void UpdateFeaturesHandler::handle(ApiRequest& request, UpdateFeaturesRequest& body, Responder& out) {
  if (!authorized_cluster(services_, request, AclOperation::kAlter)) {  // as ControllerApis
    out.send(error_response(body, ErrorCode::kClusterAuthorizationFailed));
    return;
  }
  UpdateFeaturesResponse resp;
  resp.error_message = std::nullopt;
  for (const auto& u : body.feature_updates) {
    // v0 has AllowDowngrade where v1+ has the upgrade type.
    const int8_t type = request.api_version() == 0 ? (u.allow_downgrade ? kSafeDowngrade : kUpgrade) : u.upgrade_type;
    auto why = feature_update_refusal(features(), u.feature, u.max_version_level, type, services_.broker.node_id);
    UpdateFeaturesResponse::UpdatableFeatureResult r;
    r.feature = u.feature;
    r.error_code = code(why ? ErrorCode::kInvalidUpdateVersion : ErrorCode::kNone);
    r.error_message = why;
    if (why && resp.error_code == 0) {
      resp.error_code = r.error_code;
      resp.error_message = "The update failed for all features since the following feature had an error: " + *why;
    }
    if (request.api_version() < 2) resp.results.push_back(std::move(r));
  }
  if (request.api_version() < 2) {  // per feature instead
    resp.error_code = 0;
    resp.error_message = std::nullopt;
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
