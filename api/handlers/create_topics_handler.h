// CreateTopics (key 19), v2-7: partitions, replication factor, configs,
// validate_only; v5+ answers with the resulting configs. One node has one
// replica: factor 1 or -1 is accepted, a larger one gets
// INVALID_REPLICATION_FACTOR unless skiff.accept.replication.factor.enable
// lets a dev broker accept it as 1 (with a warning). Manual replica
// assignments naming only this broker are accepted.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/create_topics_request.h"
#include "protocol/generated/create_topics_response.h"

namespace skiff::api {

// One topic as CreateTopics creates it (layout, config overrides, creation
// or only validation) and its answer at `version`; no ACL check. Also the
// path of the internal topics a streams group needs (StreamsGroupHeartbeat).
protocol::CreateTopicsResponse::CreatableTopicResult create_topic_as_requested(
    BrokerServices& services, const protocol::CreateTopicsRequest::CreatableTopic& topic, bool validate_only,
    int16_t version);

class CreateTopicsHandler : public TypedApiHandler<protocol::CreateTopicsRequest, protocol::CreateTopicsResponse> {
 public:
  explicit CreateTopicsHandler(BrokerServices& services)
      : TypedApiHandler(protocol::CreateTopicsRequest::kApiKey, 2, 7), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::CreateTopicsRequest& body, Responder& out) override;
  protocol::CreateTopicsResponse error_response(const protocol::CreateTopicsRequest& body, ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
