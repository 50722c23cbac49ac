// SchemaRegistryApp: the built-in Schema Registry as the broker runs it: the
// `_schemas` topic (schemas_topic.h), the service replayed from it
// (registry_service.h), Confluent's REST API (registry_http.h) on its own
// HTTP listener (schema.registry.listeners), apart from the broker's
// http.listeners so that a client configured for Confluent's port 8081
// finds it there; its https:// endpoints serve TLS (`tls`), HTTP Basic
// stays the authentication.
//
// Lifecycle: start() once the logs are loaded: opens (or creates) `_schemas`
// and checks it, replays it, binds and starts the listener; it throws
// StartupError-worthy std::runtime_error with what to fix (a `_schemas` of
// several partitions or not compacted, a busy explicitly set port). stop()
// closes the listener, then the topic's flusher drains.
// Threads: start()/stop() on the controlling thread; requests on the
// listener's own HTTP thread.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "apps/schema_registry/registry_http.h"
#include "apps/schema_registry/registry_service.h"
#include "apps/schema_registry/schemas_topic.h"
#include "config/listener.h"
#include "network/http_server.h"
#include "network/tls_context.h"

namespace skiff::schemareg {

struct SchemaRegistryAppConfig {
  std::vector<config::Listener> listeners;  // http:// or https:// (config::is_https)
  bool listeners_explicit = false;          // a busy port fails start() (else: warn, registry off)
  // The TLS of the https:// endpoints (the ssl.* keys with
  // listener.name.schema_registry.ssl.* over them); null when none is.
  std::shared_ptr<network::TlsListenerContext> tls;
  RegistryHttpConfig http;
  // The broker's message.max.bytes: a write past it is 42209 (schemas_topic.h);
  // request bodies may be twice as large, so such a schema gets that answer
  // rather than the HTTP layer's 413.
  int32_t max_message_bytes = 1048588;
};

class SchemaRegistryApp {
 public:
  SchemaRegistryApp(coordinator::StateTopic& topic, SchemaRegistryAppConfig config);
  ~SchemaRegistryApp();

  void start();
  void stop();

  // The addresses the listener bound (empty when it is off), an https://
  // one with its scheme (network::HttpServer::endpoint_texts).
  std::vector<std::string> endpoints() const;
  RegistryService& service() { return service_; }

 private:
  coordinator::StateTopic& state_topic_;
  SchemasTopic topic_;
  RegistryService service_;
  RegistryHttp http_;
  SchemaRegistryAppConfig config_;
  std::unique_ptr<network::HttpServer> server_;
};

}  // namespace skiff::schemareg
