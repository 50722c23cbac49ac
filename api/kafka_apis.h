// KafkaApis: the RequestHandler the handler threads call. It reads the
// request header, checks the API and version against the HandlerRegistry and
// hands the request to that API's handler (one file per API in handlers/).
//
//  - unknown API key, or a version outside the advertised range: the
//    connection is closed and the reason logged, as Apache Kafka does;
//    except ApiVersions above our max, answered in v0 with UNSUPPORTED_VERSION;
//  - a header or body that does not decode: that connection is closed;
//  - a handler that throws: that API's error response, UNKNOWN_SERVER_ERROR.
// Thread-safe: called concurrently from every handler thread.
#pragma once

#include "api/broker_info.h"
#include "api/handler_registry.h"
#include "config/broker_config.h"
#include "network/request.h"

namespace skiff::api {

class ApiVersionsHandler;

class KafkaApis : public network::RequestHandler {
 public:
  KafkaApis(const config::BrokerConfig& config, const BrokerInfo& broker);
  ~KafkaApis() override;

  void handle(network::Request request, network::ResponseSender& sender) override;

  const HandlerRegistry& registry() const { return registry_; }

 private:
  const config::BrokerConfig& config_;
  const BrokerInfo& broker_;
  HandlerRegistry registry_;
  ApiVersionsHandler* api_versions_ = nullptr;
};

}  // namespace skiff::api
