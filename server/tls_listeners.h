// The TLS contexts of the broker's SSL listeners and of its https://
// endpoints (http.listeners, schema.registry.listeners,
// rest.proxy.listeners), built from the
// ssl.* keys (config/ssl_settings.h) at startup, before the logs are loaded,
// so that a missing file, a bad key or a wrong password stops the broker at
// once.
// Called from the startup thread only.
#pragma once

#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "config/broker_config.h"
#include "network/tls_context.h"

namespace skiff::server {

// Bad TLS key material or settings: a configuration error (exit code 2).
class TlsStartupError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Listener name -> its reloadable context, for every SSL listener.
std::map<std::string, std::shared_ptr<network::TlsListenerContext>> build_tls_listeners(
    const config::BrokerConfig& config);

// The https:// endpoints' contexts, one per key (every https:// endpoint of
// a key shares it); null where the key has no https:// endpoint.
struct HttpsContexts {
  std::shared_ptr<network::TlsListenerContext> http;             // http.listeners
  std::shared_ptr<network::TlsListenerContext> schema_registry;  // schema.registry.listeners
  std::shared_ptr<network::TlsListenerContext> rest_proxy;       // rest.proxy.listeners
};
// Throws TlsStartupError.
HttpsContexts build_https_contexts(const config::BrokerConfig& config);

// The network layer's form of one listener's settings.
network::TlsSettings tls_settings(const config::SslSettings& ssl);

}  // namespace skiff::server
