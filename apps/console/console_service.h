// The web console's back end: the JSON API of docs/console-api.md on the
// HTTP listener, answered by ConsoleService through in-process Kafka
// requests (client/in_process_client.h), and the page's assets.
//
//   ConsoleService  made once KafkaApis (the RequestHandler) exists; checks each /api/ call
//                   (HTTP Basic credentials when the broker has a PLAIN or
//                   SCRAM listener, JSON content type and
//                   http.console.write.enabled for a POST), runs the
//                   endpoint (console_endpoints.h) and shapes its errors.
//   ConsoleHost     what the HTTP routes hold from startup on: 503 until a
//                   service is published, and again once it is withdrawn
//                   (shutdown), which waits out a call in progress.
//
// Threads: routes and calls on the HTTP thread; publish/withdraw on the
// controlling thread.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "apps/console/console_endpoints.h"
#include "config/broker_config.h"
#include "network/http_server.h"
#include "network/request.h"
#include "security/sasl/sasl_mechanisms.h"

namespace skiff::console {

class ConsoleService {
 public:
  // `handler` answers the console's Kafka requests (KafkaApis); `sasl` is
  // the SASL listeners' mechanisms, which check the console's logins. Both
  // outlive the service.
  ConsoleService(network::RequestHandler& handler, const sasl::SaslMechanisms& sasl, const config::BrokerConfig& config,
                 ConsoleBroker broker);

  // An /api/ call: `endpoint` with the checks above.
  network::HttpResponse answer(const network::HttpRequest& request, const Endpoint& endpoint, bool writes);

 private:
  // The identity the call's Kafka requests carry; throws 401 when the
  // broker wants credentials and these are missing or wrong.
  client::ClientIdentity identify(const network::HttpRequest& request) const;

  network::RequestHandler& handler_;
  const sasl::SaslMechanisms& sasl_;
  ConsoleBroker broker_;
  bool write_enabled_;
  std::string listener_;            // the listener the console's requests are said to come from
  std::string auth_ = "none";       // "basic": listener_ is a SASL listener with a password mechanism
  client::InProcessSender sender_;  // outlives every request given to handler_ (see client/in_process_client.h)
};

class ConsoleHost {
 public:
  void publish(ConsoleService* service);
  void withdraw() { publish(nullptr); }
  network::HttpResponse answer(const network::HttpRequest& request, const Endpoint& endpoint, bool writes) const;

 private:
  mutable std::mutex mu_;
  ConsoleService* service_ = nullptr;
};

// The /api/ routes (answered through `host`) and the page's assets.
void register_console_routes(network::HttpServer& http, const ConsoleHost& host);

}  // namespace skiff::console
