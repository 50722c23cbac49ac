// CreatePartitions (key 37), v0-3: grows a topic; validate_only honoured.
// Every requested topic is listed in the response (clients rely on it).
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/create_partitions_request.h"
#include "protocol/generated/create_partitions_response.h"

namespace skiff::api {

class CreatePartitionsHandler
    : public TypedApiHandler<protocol::CreatePartitionsRequest, protocol::CreatePartitionsResponse> {
 public:
  explicit CreatePartitionsHandler(BrokerServices& services)
      : TypedApiHandler(protocol::CreatePartitionsRequest::kApiKey, 0, 3), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::CreatePartitionsRequest& body, Responder& out) override;
  protocol::CreatePartitionsResponse error_response(const protocol::CreatePartitionsRequest& body,
                                                    ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
