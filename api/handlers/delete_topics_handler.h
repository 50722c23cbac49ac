// DeleteTopics (key 20), v1-6, by name (v0-5 list, v6 states) or by topic
// id (v6): the data is removed from disk and the name is free at once.
// Fetches waiting on the deleted partitions are woken (they then see
// UNKNOWN_TOPIC_OR_PARTITION). delete.topic.enable=false refuses.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/delete_topics_request.h"
#include "protocol/generated/delete_topics_response.h"

namespace skiff::api {

class DeleteTopicsHandler : public TypedApiHandler<protocol::DeleteTopicsRequest, protocol::DeleteTopicsResponse> {
 public:
  explicit DeleteTopicsHandler(BrokerServices& services)
      : TypedApiHandler(protocol::DeleteTopicsRequest::kApiKey, 1, 6), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::DeleteTopicsRequest& body, Responder& out) override;
  protocol::DeleteTopicsResponse error_response(const protocol::DeleteTopicsRequest& body, ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
