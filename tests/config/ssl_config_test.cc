// The ssl.* keys, their per-listener form listener.name.<name>.ssl.*, the
// checks an SSL listener needs before any file is read, the https://
// endpoints of http.listeners and schema.registry.listeners with their
// pseudo-listener names, and Kafka's ssl.principal.mapping.rules
// (SslPrincipalMapper).
#include <catch2/catch.hpp>

#include "config/config_def.h"
#include "config/config_loader.h"
#include "config/ssl_principal_mapper.h"
#include "config_test_util.h"

using namespace skiff::config;
using namespace skiff::config::test;

namespace {

const std::vector<std::string> kSslListener = {
    "listeners=PLAINTEXT://localhost:9092,SSL://localhost:9093",
    "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SSL:SSL",
};

std::vector<std::string> ssl_listener_with(std::vector<std::string> more) {
  auto all = kSslListener;
  all.insert(all.end(), more.begin(), more.end());
  return all;
}

}  // namespace

TEST_CASE("SSL is a security protocol, and SASL_SSL one over TLS too", "[config][ssl]") {
  auto c = load_with(ssl_listener_with({"ssl.keystore.location=/k.pem"}));
  CHECK(c.listener_security_protocol_map.at("SSL") == "SSL");
  CHECK(c.uses_tls("SSL"));
  CHECK_FALSE(c.uses_sasl("SSL"));
  CHECK_THAT(error_of({"listener.security.protocol.map=PLAINTEXT:SASL_SSL", "sasl.enabled.mechanisms=SCRAM-SHA-512"}),
             Catch::Contains("listener PLAINTEXT (SASL_SSL): no key material"));
  CHECK_THAT(error_of({"listener.security.protocol.map=PLAINTEXT:TLS"}), Catch::Contains("unknown security protocol"));
}

TEST_CASE("ssl.* defaults are Kafka's, with PEM as the store type", "[config][ssl]") {
  auto c = load_with({});
  CHECK(c.ssl.keystore_type == "PEM");
  CHECK(c.ssl.client_auth == "none");
  CHECK(c.ssl.enabled_protocols == std::vector<std::string>{"TLSv1.2", "TLSv1.3"});
  CHECK(c.ssl.cipher_suites.empty());
  CHECK(c.ssl.principal_mapping_rules == "DEFAULT");
  CHECK(load_with({"ssl.endpoint.identification.algorithm="})
            .effective.at("ssl.endpoint.identification.algorithm")
            .value.empty());
}

TEST_CASE("an SSL listener needs key material, and a truststore for client auth", "[config][ssl]") {
  CHECK_THAT(error_of(kSslListener), Catch::Contains("listener SSL (SSL): no key material"));
  CHECK_THAT(error_of(ssl_listener_with({"ssl.keystore.key=KEY"})), Catch::Contains("go together"));
  CHECK_THAT(error_of(ssl_listener_with(
                 {"ssl.keystore.location=/k.pem", "ssl.keystore.key=K", "ssl.keystore.certificate.chain=C"})),
             Catch::Contains("not both"));
  CHECK_THAT(error_of(ssl_listener_with({"ssl.keystore.location=/k.pem", "ssl.client.auth=required"})),
             Catch::Contains("ssl.truststore.location"));
  CHECK_THAT(error_of(ssl_listener_with({"ssl.keystore.location=/k.pem", "ssl.keystore.password=x"})),
             Catch::Contains("cannot be specified with PEM"));
  CHECK_THAT(error_of(ssl_listener_with({"ssl.keystore.location=/k.pem", "ssl.keystore.type=JKS"})),
             Catch::Contains("PEM key material only"));
  CHECK(error_of(ssl_listener_with({"ssl.keystore.key=K", "ssl.keystore.certificate.chain=C",
                                    "ssl.client.auth=requested", "ssl.truststore.certificates=T"}))
            .empty());
}

TEST_CASE("TLS 1.0 and 1.1 are never enabled, even when asked for", "[config][ssl]") {
  auto c = load_with({"ssl.enabled.protocols=TLSv1.1,TLSv1.2,TLSv1"});
  CHECK(c.ssl.enabled_protocols == std::vector<std::string>{"TLSv1.2"});
  CHECK_THAT(c.warnings.at(0), Catch::Contains("TLSv1.1 is insecure"));
  CHECK_THAT(error_of({"ssl.enabled.protocols=TLSv1.1"}), Catch::Contains("at least one of TLSv1.2, TLSv1.3"));
  CHECK_THAT(error_of({"ssl.enabled.protocols=TLSv9"}), Catch::Contains("unknown protocol 'TLSv9'"));
}

TEST_CASE("listener.name.<name>.ssl.* overrides the broker-wide key for that listener only", "[config][ssl]") {
  auto c = load_with({"listeners=PLAINTEXT://localhost:9092,SSL://localhost:9093,MTLS://localhost:9094",
                      "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SSL:SSL,MTLS:SSL",
                      "ssl.keystore.location=/broker.pem", "ssl.truststore.location=/ca.pem",
                      "listener.name.mtls.ssl.client.auth=required",
                      "listener.name.mtls.ssl.principal.mapping.rules=RULE:^CN=(.*?),.*$/$1/L"});
  CHECK(c.ssl_for("SSL").client_auth == "none");
  CHECK(c.ssl_for("MTLS").client_auth == "required");
  CHECK(c.ssl_for("MTLS").keystore_location == "/broker.pem");  // not overridden: the broker-wide value
  CHECK(c.ssl_for("MTLS").principal_mapping_rules == "RULE:^CN=(.*?),.*$/$1/L");
  CHECK(c.ssl_for("SSL").principal_mapping_rules == "DEFAULT");
  CHECK(c.effective.at("listener.name.mtls.ssl.client.auth").value == "required");
}

TEST_CASE("listener keys: bad values, unknown listeners, and the environment form", "[config][ssl]") {
  CHECK_THAT(error_of(ssl_listener_with({"ssl.keystore.location=/k.pem", "listener.name.ssl.ssl.client.auth=maybe"})),
             Catch::Contains("listener.name.ssl.ssl.client.auth"));
  CHECK_THAT(error_of({"listener.name.nope.ssl.client.auth=required"}), Catch::Contains("names listener 'nope'"));
  CHECK_THAT(error_of({"listener.name.ssl.ssl.nonsense=1"}), Catch::Contains("Unknown configuration"));
  auto c = load_with(kSslListener, {{"SKIFF_LISTENER_NAME_SSL_SSL_KEY_PASSWORD", "pw"},
                                    {"SKIFF_LISTENER_NAME_SSL_SSL_KEYSTORE_KEY", "k"},
                                    {"SKIFF_LISTENER_NAME_SSL_SSL_KEYSTORE_CERTIFICATE_CHAIN", "c"}});
  CHECK(c.ssl_for("SSL").keystore_key == "k");  // not mistaken for a listener "SSL_SSL_KEYSTORE" and ssl.key.*
  CHECK(c.ssl_for("SSL").key_password == "pw");
  CHECK(c.ssl_for("SSL").keystore_certificate_chain == "c");
  CHECK(c.ssl.keystore_key.empty());
  auto l = load_with(kSslListener, {{"SKIFF_LISTENER_NAME_SSL_SSL_KEYSTORE_LOCATION", "/env.pem"}});
  CHECK(l.ssl_for("SSL").keystore_location == "/env.pem");
}

TEST_CASE("https endpoints take ssl.* with listener.name.http and listener.name.schema_registry over it",
          "[config][ssl][https]") {
  auto c = load_with({"http.listeners=https://127.0.0.1:8443,http://127.0.0.1:8095",
                      "schema.registry.listeners=HTTPS://[::1]:8081", "ssl.keystore.location=/broker.pem",
                      "ssl.truststore.location=/ca.pem", "listener.name.HTTP.ssl.client.auth=required",
                      "listener.name.schema_registry.ssl.keystore.location=/registry.pem"});
  REQUIRE(c.http_listeners.size() == 2);
  CHECK(c.http_listeners[0] == Listener{"https", "127.0.0.1", 8443});
  CHECK(is_https(c.http_listeners[0]));
  CHECK_FALSE(is_https(c.http_listeners[1]));
  CHECK(c.schema_registry_listeners.at(0) == Listener{"https", "::1", 8081});
  CHECK(c.http_ssl.client_auth == "required");
  CHECK(c.http_ssl.keystore_location == "/broker.pem");  // not overridden: the broker-wide value
  CHECK(c.schema_registry_ssl.keystore_location == "/registry.pem");
  CHECK(c.schema_registry_ssl.client_auth == "none");
  CHECK(c.schema_registry_ssl.truststore_location == "/ca.pem");
  CHECK(c.ssl.client_auth == "none");  // the broker-wide value is untouched
  CHECK(c.ssl_for("PLAINTEXT").keystore_location == "/broker.pem");
  CHECK(c.effective.at("listener.name.schema_registry.ssl.keystore.location").value == "/registry.pem");
  auto e = load_with({"schema.registry.listeners=https://127.0.0.1:0"},
                     {{"SKIFF_LISTENER_NAME_SCHEMA_REGISTRY_SSL_KEYSTORE_LOCATION", "/env.pem"}});
  CHECK(e.schema_registry_ssl.keystore_location == "/env.pem");
  CHECK(e.http_ssl.keystore_location.empty());
}

TEST_CASE("an https endpoint without key material stops startup naming the key to set", "[config][ssl][https]") {
  CHECK_THAT(error_of({"schema.registry.listeners=https://127.0.0.1:8081"}),
             Catch::Contains("schema.registry.listeners https://127.0.0.1:8081: no key material: set "
                             "ssl.keystore.location") &&
                 Catch::Contains("listener.name.schema_registry.ssl.*"));
  CHECK_THAT(error_of({"http.listeners=https://127.0.0.1:8443",
                       "listener.name.schema_registry.ssl.keystore.location=/registry.pem"}),
             Catch::Contains("http.listeners https://127.0.0.1:8443: no key material"));
  CHECK_THAT(error_of({"http.listeners=https://127.0.0.1:8443", "ssl.keystore.location=/k.pem",
                       "listener.name.http.ssl.client.auth=required"}),
             Catch::Contains("http.listeners https://127.0.0.1:8443: ssl.client.auth=required needs the CAs"));
  CHECK(error_of({"http.listeners=http://127.0.0.1:8095", "schema.registry.listeners=http://127.0.0.1:8081"}).empty());
  CHECK(error_of({"http.listeners=https://127.0.0.1:8443", "listener.name.http.ssl.keystore.key=K",
                  "listener.name.http.ssl.keystore.certificate.chain=C"})
            .empty());
}

TEST_CASE("the https pseudo-listener names take ssl.* keys only, other unknown names still fail",
          "[config][ssl][https]") {
  CHECK(error_of({"listener.name.Schema_Registry.ssl.client.auth=requested"}).empty());  // no https endpoint: unused
  CHECK_THAT(error_of({"listener.name.http.sasl.enabled.mechanisms=PLAIN"}), Catch::Contains("names listener 'http'"));
  CHECK_THAT(error_of({"listener.name.https.ssl.client.auth=required"}), Catch::Contains("names listener 'https'"));
  CHECK_THAT(error_of({"listener.name.registry.ssl.client.auth=required"}),
             Catch::Contains("names listener 'registry'") && Catch::Contains("'schema_registry'"));
  CHECK_THAT(error_of({"listener.name.http.ssl.client.auth=maybe"}),
             Catch::Contains("listener.name.http.ssl.client.auth"));
  // A Kafka listener of the same name takes the keys as well.
  auto c = load_with({"listeners=HTTP://localhost:9092", "listener.security.protocol.map=HTTP:SSL",
                      "ssl.keystore.location=/k.pem", "listener.name.http.ssl.key.password=pw"});
  CHECK(c.ssl_for("HTTP").key_password == "pw");
  CHECK(c.http_ssl.key_password == "pw");
}

TEST_CASE("passwords and private keys are never printed", "[config][ssl]") {
  auto c = load_with({"ssl.key.password=s3cret", "ssl.keystore.key=PRIVATE"});
  auto text = describe_config(c);
  CHECK(text.find("s3cret") == std::string::npos);
  CHECK(text.find("PRIVATE") == std::string::npos);
  CHECK(find_config_def("ssl.key.password")->type == ConfigType::kPassword);
}

TEST_CASE("principal mapping: DEFAULT keeps the subject", "[config][ssl]") {
  auto m = SslPrincipalMapper::parse("DEFAULT");
  CHECK(m.name_for("CN=client,OU=test,O=org,C=US") == "CN=client,OU=test,O=org,C=US");
  CHECK(SslPrincipalMapper::parse("").name_for("CN=a") == "CN=a");
}

TEST_CASE("principal mapping: Kafka's documented rules", "[config][ssl]") {
  // The examples of Kafka's SslPrincipalMapperTest.
  auto m = SslPrincipalMapper::parse(
      "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/,RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/L,"
      "RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/L,DEFAULT");
  CHECK(m.name_for("CN=Duke,OU=ServiceUsers,O=Org,C=US") == "Duke");
  CHECK(m.name_for("CN=Duke,OU=SME,O=mycp,L=Fulton,ST=MD,C=US") == "duke@sme");
  CHECK(m.name_for("cn=duke,ou=JavaSoft,o=Sun Microsystems") == "duke");
  CHECK(m.name_for("OU=JavaSoft,O=Sun Microsystems,C=US") == "OU=JavaSoft,O=Sun Microsystems,C=US");
}

TEST_CASE("principal mapping: upper case, escaped slashes, and no match", "[config][ssl]") {
  auto upper = SslPrincipalMapper::parse("RULE:^CN=(.*?),.*$/$1/U");
  CHECK(upper.name_for("CN=client,OU=test") == "CLIENT");
  CHECK_FALSE(upper.name_for("OU=test").has_value());  // no rule applies: Kafka refuses the connection
  auto slash = SslPrincipalMapper::parse("RULE:^CN=(.*?)\\/(.*)$/$1\\/x/");
  CHECK(slash.name_for("CN=a/b") == "a/x");
  auto spaced = SslPrincipalMapper::parse("  RULE:^CN=(.*)$/$1/ ,  DEFAULT ");
  CHECK(spaced.name_for("CN=z") == "z");
  CHECK(spaced.name_for("O=z") == "O=z");
}

TEST_CASE("principal mapping: invalid rules are configuration errors", "[config][ssl]") {
  CHECK_THROWS_WITH(SslPrincipalMapper::parse("RULE:^CN=(.*?)/$1"), Catch::Contains("Invalid rule"));
  CHECK_THROWS_WITH(SslPrincipalMapper::parse("DEFAULTS"), Catch::Contains("Invalid rule"));
  CHECK_THROWS_WITH(SslPrincipalMapper::parse("RULE:[/x/"), Catch::Contains("bad pattern"));
  CHECK_THROWS_WITH(SslPrincipalMapper::parse("DEFAULT,"), Catch::Contains("Invalid rule"));
  CHECK_THAT(error_of({"ssl.principal.mapping.rules=NOPE"}), Catch::Contains("ssl.principal.mapping.rules"));
}
