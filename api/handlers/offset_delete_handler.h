// OffsetDelete (key 47), v0: deletes committed offsets of partitions the
// group does not consume (GROUP_SUBSCRIBED_TO_TOPIC otherwise).
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/offset_delete_request.h"
#include "protocol/generated/offset_delete_response.h"

namespace skiff::api {

class OffsetDeleteHandler : public TypedApiHandler<protocol::OffsetDeleteRequest, protocol::OffsetDeleteResponse> {
 public:
  explicit OffsetDeleteHandler(BrokerServices& services)
      : TypedApiHandler(protocol::OffsetDeleteRequest::kApiKey, 0, 0), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::OffsetDeleteRequest& body, Responder& out) override;
  protocol::OffsetDeleteResponse error_response(const protocol::OffsetDeleteRequest& body, ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
