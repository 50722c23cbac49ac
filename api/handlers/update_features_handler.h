// UpdateFeatures (key 57), v0-2: Skiff's feature levels are fixed by its
// build (api/features.h), so an update is checked as Kafka's controller checks
// it and then succeeds only when it asks for the level already finalized (a
// no-op). Refusals are INVALID_UPDATE_VERSION with Kafka's messages: a level
// outside the supported range ("Local controller N only supports versions
// A-B", so an upgrade to a level Skiff lacks names the levels it has), an
// unknown feature, a downgrade without a downgrade type, an upgrade with one.
// A change that passes those checks (possible once a feature supports more
// than one level) is refused with a message saying the levels are fixed.
// v0-1 answer per feature; v2 has only the top-level error, which names the
// first failing feature as Kafka does. ValidateOnly changes nothing either way.
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
