// UpdateFeatures (key 57), v0-2: changes the finalized feature levels
// (api/feature_levels.h) as Kafka's controller does. Every update of the
// request is checked against Kafka's rules and messages ("Invalid update
// version L for feature F. ...": a level outside the supported range, an
// unknown feature, a downgrade without a downgrade type, an upgrade with
// one); one refused refuses them all, answered as Kafka 4.4 answers it: the
// top-level INVALID_UPDATE_VERSION with "The update failed for all features
// since the following feature had an error: ...", no per-feature results.
// On success v0-1 carry a NONE result per feature. ValidateOnly checks and
// changes nothing. Needs ALTER on the cluster.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/update_features_request.h"
#include "protocol/generated/update_features_response.h"

namespace skiff::api {

class UpdateFeaturesHandler
    : public TypedApiHandler<protocol::UpdateFeaturesRequest, protocol::UpdateFeaturesResponse> {
 public:
  explicit UpdateFeaturesHandler(BrokerServices& services)
      : TypedApiHandler(protocol::UpdateFeaturesRequest::kApiKey, 0, 2), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::UpdateFeaturesRequest& body, Responder& out) override;
  protocol::UpdateFeaturesResponse error_response(const protocol::UpdateFeaturesRequest& body,
                                                  ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
