#include "server/tls_listeners.h"

#include <algorithm>
#include <string_view>
#include <vector>

#include "config/ssl_principal_mapper.h"

namespace skiff::server {

network::TlsSettings tls_settings(const config::SslSettings& ssl) {
  network::TlsSettings t;
  t.keystore_location = ssl.keystore_location;
  t.keystore_key = ssl.keystore_key;
  t.keystore_certificate_chain = ssl.keystore_certificate_chain;
  t.key_password = ssl.key_password;
  t.truststore_location = ssl.truststore_location;
  t.truststore_certificates = ssl.truststore_certificates;
  using Auth = network::TlsSettings::ClientAuth;
  t.client_auth = ssl.client_auth == "required"    ? Auth::kRequired
                  : ssl.client_auth == "requested" ? Auth::kRequested
                                                   : Auth::kNone;
  auto has = [&](const char* p) {
    return std::find(ssl.enabled_protocols.begin(), ssl.enabled_protocols.end(), p) != ssl.enabled_protocols.end();
  };
  t.tls12 = has("TLSv1.2");
  t.tls13 = has("TLSv1.3");
  t.cipher_suites = ssl.cipher_suites;
  auto mapper = std::make_shared<config::SslPrincipalMapper>(
      config::SslPrincipalMapper::parse(ssl.principal_mapping_rules));  // validated when the config loaded
  t.principal_mapper = [mapper](const std::string& dn) { return mapper->name_for(dn); };
  return t;
}

std::map<std::string, std::shared_ptr<network::TlsListenerContext>> build_tls_listeners(
    const config::BrokerConfig& config) {
  std::map<std::string, std::shared_ptr<network::TlsListenerContext>> out;
  for (const auto& l : config.listeners) {
    if (!config.uses_tls(l.name)) continue;  // SSL or SASL_SSL
    try {
      out[l.name] = std::make_shared<network::TlsListenerContext>(l.name, tls_settings(config.ssl_for(l.name)));
    } catch (const std::exception& e) {
      throw TlsStartupError(e.what());
    }
  }
  return out;
}

namespace {

// `key`: the listeners' config key, named in the error ("http.listeners:
// listener http: ssl.keystore.location '...' cannot be read").
std::shared_ptr<network::TlsListenerContext> https_context(const std::vector<config::Listener>& endpoints,
                                                           std::string_view key, std::string_view name,
                                                           const config::SslSettings& ssl) {
  if (std::none_of(endpoints.begin(), endpoints.end(), config::is_https)) return nullptr;
  try {
    return std::make_shared<network::TlsListenerContext>(std::string(name), tls_settings(ssl));
  } catch (const std::exception& e) {
    throw TlsStartupError(std::string(key) + ": " + e.what());
  }
}

}  // namespace

HttpsContexts build_https_contexts(const config::BrokerConfig& config) {
  return {https_context(config.http_listeners, "http.listeners", config::kHttpTlsName, config.http_ssl),
          https_context(config.schema_registry_listeners, "schema.registry.listeners", config::kSchemaRegistryTlsName,
                        config.schema_registry_ssl),
          https_context(config.rest_proxy_listeners, "rest.proxy.listeners", config::kRestProxyTlsName,
                        config.rest_proxy_ssl)};
}

}  // namespace skiff::server
