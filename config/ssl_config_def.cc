// The ssl.* keys of the one configuration table (config_def.h), Kafka's
// names, and their per-listener form listener.name.<name>.ssl.*. Values are
// checked for form here; the key material itself is read when the broker
// builds its TLS contexts (network/tls_context.h), which names the file and
// what is wrong with it.
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "config/config_def.h"
#include "config/ssl_principal_mapper.h"
#include "config/string_util.h"

namespace skiff::config {
namespace {

using Member = std::string SslSettings::*;

ConfigKeyDef text_key(std::string name, std::string doc, Member member, ConfigType type = ConfigType::kString,
                      std::string allowed = "a string") {
  return ConfigKeyDef{std::move(name),
                      type,
                      "",
                      std::move(doc),
                      [=](BrokerConfig& c, const std::string& v) { c.ssl.*member = std::string(trim(v)); },
                      std::move(allowed)};
}

ConfigKeyDef pem_type_key(std::string name, std::string doc, Member member) {
  return ConfigKeyDef{std::move(name),
                      ConfigType::kString,
                      "PEM",
                      std::move(doc),
                      [=](BrokerConfig& c, const std::string& v) {
                        auto t = to_lower(trim(v));
                        if (t != "pem")
                          throw std::invalid_argument(
                              "Skiff reads PEM key material only; convert a JKS or PKCS12 store to PEM (e.g. "
                              "openssl pkcs12 -in store.p12 -nodes) and set PEM");
                        c.ssl.*member = "PEM";
                      },
                      "PEM"};
}

// TLS 1.0 and 1.1 (and SSL) are refused even when asked for: dropped with a
// warning, so that a Kafka configuration listing them still starts.
ConfigKeyDef enabled_protocols_key() {
  return ConfigKeyDef{
      "ssl.enabled.protocols",
      ConfigType::kList,
      "TLSv1.2,TLSv1.3",
      "TLS versions accepted. Only TLSv1.2 and TLSv1.3: older ones are dropped with a warning.",
      [](BrokerConfig& c, const std::string& v) {
        std::vector<std::string> out;
        for (const auto& p : split_list(v)) {
          if (p == "TLSv1.2" || p == "TLSv1.3") {
            if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
          } else if (p == "TLSv1" || p == "TLSv1.1" || p == "SSLv3" || p == "SSLv2" || p == "SSLv2Hello") {
            c.warnings.push_back(fmt::format("ssl.enabled.protocols: {} is insecure and never enabled", p));
          } else {
            throw std::invalid_argument(fmt::format("unknown protocol '{}'", p));
          }
        }
        if (out.empty()) throw std::invalid_argument("at least one of TLSv1.2, TLSv1.3 is needed");
        c.ssl.enabled_protocols = std::move(out);
      },
      "a list of TLSv1.2, TLSv1.3"};
}

ConfigKeyDef choice_key(std::string name, std::string def, const std::vector<std::string>& allowed, std::string doc,
                        Member member) {
  return one_of_key(std::move(name), std::move(def), allowed, std::move(doc),
                    [member](BrokerConfig& c, const std::string& v) { c.ssl.*member = v; });
}

}  // namespace

void add_ssl_keys(std::vector<ConfigKeyDef>& d) {
  d.push_back(pem_type_key("ssl.keystore.type", "Format of the key material: PEM (Kafka's default is JKS).",
                           &SslSettings::keystore_type));
  d.push_back(text_key("ssl.keystore.location",
                       "PEM file with the listener's private key and certificate chain. Reloaded when it changes.",
                       &SslSettings::keystore_location, ConfigType::kString, "a file path"));
  d.push_back(text_key("ssl.keystore.password", "Not used with PEM (set ssl.key.password), as in Kafka.",
                       &SslSettings::keystore_password, ConfigType::kPassword));
  d.push_back(text_key("ssl.keystore.key", "The private key in PEM, inline (instead of ssl.keystore.location).",
                       &SslSettings::keystore_key, ConfigType::kPassword, "PEM text"));
  d.push_back(text_key("ssl.keystore.certificate.chain", "The certificate chain in PEM, inline, with ssl.keystore.key.",
                       &SslSettings::keystore_certificate_chain, ConfigType::kString, "PEM text"));
  d.push_back(text_key("ssl.key.password", "Password of an encrypted PEM private key.", &SslSettings::key_password,
                       ConfigType::kPassword));
  d.push_back(pem_type_key("ssl.truststore.type", "Format of the trusted certificates: PEM (Kafka's default is JKS).",
                           &SslSettings::truststore_type));
  d.push_back(text_key("ssl.truststore.location",
                       "PEM file of the CA certificates that client certificates are checked against. Reloaded "
                       "when it changes.",
                       &SslSettings::truststore_location, ConfigType::kString, "a file path"));
  d.push_back(text_key("ssl.truststore.password", "Not used with PEM, as in Kafka.", &SslSettings::truststore_password,
                       ConfigType::kPassword));
  d.push_back(text_key("ssl.truststore.certificates", "Trusted CA certificates in PEM, inline.",
                       &SslSettings::truststore_certificates, ConfigType::kString, "PEM text"));
  d.push_back(choice_key("ssl.client.auth", "none", {"none", "requested", "required"},
                         "Client certificates: not asked for, asked for, or required (mutual TLS).",
                         &SslSettings::client_auth));
  d.push_back(enabled_protocols_key());
  d.push_back(choice_key("ssl.protocol", "TLSv1.3", {"TLSv1.2", "TLSv1.3", "TLS"},
                         "Accepted for Kafka configurations; ssl.enabled.protocols decides.", &SslSettings::protocol));
  d.push_back(ConfigKeyDef{"ssl.endpoint.identification.algorithm", ConfigType::kString, "https",
                           "Accepted for Kafka configurations; a single broker makes no TLS connections to check.",
                           [](BrokerConfig&, const std::string&) {},  // kept only in `effective`
                           "https or empty"});
  d.push_back(ConfigKeyDef{"ssl.cipher.suites", ConfigType::kList, "",
                           "Cipher suites allowed, by IANA (Kafka's) or OpenSSL name; empty: OpenSSL's defaults.",
                           [](BrokerConfig& c, const std::string& v) { c.ssl.cipher_suites = split_list(v); },
                           "a list of cipher suite names"});
  d.push_back(ConfigKeyDef{"ssl.principal.mapping.rules", ConfigType::kString, "DEFAULT",
                           "Rules mapping a client certificate's subject to a principal name (Kafka's syntax: "
                           "RULE:pattern/replacement/[LU], DEFAULT).",
                           [](BrokerConfig& c, const std::string& v) {
                             SslPrincipalMapper::parse(v);  // throws std::invalid_argument with the rule
                             c.ssl.principal_mapping_rules = std::string(trim(v));
                           },
                           "RULE:pattern/replacement/[LU] or DEFAULT, comma-separated"});
}

}  // namespace skiff::config
