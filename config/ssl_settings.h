// SslSettings: one listener's TLS configuration, Kafka's ssl.* keys as read
// from the configuration (broker-wide, then listener.name.<name>.ssl.*
// overrides, key by key, as Kafka's valuesWithPrefixOverride). Plain values:
// nothing here opens a file; network/tls_context.h turns them into an
// OpenSSL context and says what is wrong with the key material.
#pragma once

#include <string>
#include <vector>

namespace skiff::config {

struct SslSettings {
  // Key material, PEM only: a file holding the private key and the
  // certificate chain (ssl.keystore.location), or both inline.
  std::string keystore_type = "PEM";
  std::string keystore_location;
  std::string keystore_password;  // refused with PEM, as Kafka does (only ssl.key.password applies)
  std::string keystore_key;
  std::string keystore_certificate_chain;
  std::string key_password;  // decrypts an encrypted PEM private key
  std::string truststore_type = "PEM";
  std::string truststore_location;
  std::string truststore_password;  // refused with PEM, as Kafka does
  std::string truststore_certificates;
  std::string client_auth = "none";  // none, requested, required
  std::vector<std::string> enabled_protocols{"TLSv1.2", "TLSv1.3"};
  std::string protocol = "TLSv1.3";                 // accepted; the enabled protocols decide
  std::vector<std::string> cipher_suites;           // empty: OpenSSL's defaults
  std::string principal_mapping_rules = "DEFAULT";  // config/ssl_principal_mapper.h

  bool operator==(const SslSettings&) const = default;
};

}  // namespace skiff::config
