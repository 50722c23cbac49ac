// Metadata (key 3), v0-13: this broker (with the advertised endpoint of the
// listener the request came in on), the cluster id, this node as controller,
// and the requested topics with their ids and partitions, each led by this
// node with replicas and ISR = [this node]. Unknown topics are auto-created
// when the request and auto.create.topics.enable allow it. v13 adds a
// top-level error code (KIP-1102): NONE in an answer, the request's error in
// an error response (with every topic failed too), as Kafka 4.4.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/metadata_request.h"
#include "protocol/generated/metadata_response.h"

namespace skiff::api {

class MetadataHandler : public TypedApiHandler<protocol::MetadataRequest, protocol::MetadataResponse> {
 public:
  explicit MetadataHandler(BrokerServices& services)
      : TypedApiHandler(protocol::MetadataRequest::kApiKey, 0, 13), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::MetadataRequest& body, Responder& out) override;
  protocol::MetadataResponse error_response(const protocol::MetadataRequest& body, ErrorCode error) override;

 private:
  using MetadataRequestTopic = protocol::MetadataRequest::MetadataRequestTopic;
  protocol::MetadataResponse base_response(const ApiRequest& request) const;
  protocol::MetadataResponse::MetadataResponseTopic answer_topic(const ApiRequest& request,
                                                                 const protocol::MetadataRequest& body,
                                                                 const MetadataRequestTopic& requested);
  BrokerServices& services_;
};

}  // namespace skiff::api
