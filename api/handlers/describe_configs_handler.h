// DescribeConfigs (key 32), v1-4: every topic config (value, source,
// default, read-only, sensitive, synonyms, type and doc) or every broker
// config; see admin/config_describer.h.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/describe_configs_request.h"
#include "protocol/generated/describe_configs_response.h"

namespace skiff::api {

class DescribeConfigsHandler
    : public TypedApiHandler<protocol::DescribeConfigsRequest, protocol::DescribeConfigsResponse> {
 public:
  explicit DescribeConfigsHandler(BrokerServices& services)
      : TypedApiHandler(protocol::DescribeConfigsRequest::kApiKey, 1, 4), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::DescribeConfigsRequest& body, Responder& out) override;
  protocol::DescribeConfigsResponse error_response(const protocol::DescribeConfigsRequest& body,
                                                   ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
