// The SASL keys: sasl.enabled.mechanisms and connections.max.reauth.ms,
// broker-wide and per listener; <mechanism>.sasl.jaas.config, per listener
// only, from a file, the command line or the environment; Kafka's JAAS
// syntax; and what a SASL listener needs to start.
#include <catch2/catch.hpp>

#include "config/config_loader.h"
#include "config/jaas.h"
#include "config_test_util.h"

using namespace skiff::config;
using namespace skiff::config::test;

namespace {

const std::string kJaas =
    R"(org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="a-secret" )"
    R"(user_admin="a-secret" user_alice="x\"y";)";

std::vector<std::string> sasl_listener(std::vector<std::string> more) {
  std::vector<std::string> all = {
      "listeners=PLAINTEXT://localhost:9092,SASL_PLAINTEXT://localhost:9093",
      "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT",
  };
  all.insert(all.end(), more.begin(), more.end());
  return all;
}

}  // namespace

TEST_CASE("a JAAS entry parses as Kafka's JaasConfig reads it", "[config][sasl]") {
  auto e = parse_jaas_config(kJaas);
  CHECK(e.login_module == "org.apache.kafka.common.security.plain.PlainLoginModule");
  CHECK(e.flag == "required");
  CHECK(e.options.at("user_alice") == "x\"y");
  CHECK(e.options.at("username") == "admin");
  CHECK(parse_jaas_config("a.B optional ;").options.empty());
  CHECK(parse_jaas_config("  M required k=bare-word_1 ;  ").options.at("k") == "bare-word_1");
  CHECK_THROWS_WITH(parse_jaas_config(""), Catch::Contains("empty"));
  CHECK_THROWS_WITH(parse_jaas_config("M required k=\"v\""), Catch::Contains("must end with ';'"));
  CHECK_THROWS_WITH(parse_jaas_config("M always;"), Catch::Contains("control flag"));
  CHECK_THROWS_WITH(parse_jaas_config("M required k=\"v;"), Catch::Contains("not closed"));
  CHECK_THROWS_WITH(parse_jaas_config("M required k;"), Catch::Contains("no '=value'"));
  CHECK_THROWS_WITH(parse_jaas_config("M required; N required;"), Catch::Contains("one login module"));
}

TEST_CASE("a SASL listener takes its mechanisms and JAAS entry per listener", "[config][sasl]") {
  auto c = load_with(sasl_listener({"sasl.enabled.mechanisms=scram-sha-512, PLAIN",
                                    "listener.name.sasl_plaintext.plain.sasl.jaas.config=" + kJaas,
                                    "listener.name.sasl_plaintext.connections.max.reauth.ms=60000"}));
  CHECK(c.uses_sasl("SASL_PLAINTEXT"));
  CHECK_FALSE(c.uses_tls("SASL_PLAINTEXT"));
  const auto& s = c.sasl_for("SASL_PLAINTEXT");
  CHECK(s.enabled_mechanisms == std::vector<std::string>{"SCRAM-SHA-512", "PLAIN"});
  CHECK(s.jaas_config.at("PLAIN") == kJaas);
  CHECK(s.connections_max_reauth_ms == 60000);
  CHECK(c.sasl_for("PLAINTEXT").connections_max_reauth_ms == 0);
  CHECK(c.sasl_for("PLAINTEXT").jaas_config.empty());
  CHECK(c.connection_failed_authentication_delay_ms == 100);
  CHECK(c.sasl_server_max_receive_size == 524288);
}

TEST_CASE("the JAAS entry comes from the environment too, '-' and '.' written '_'", "[config][sasl]") {
  auto c = load_with(sasl_listener({"sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256"}),
                     {{"SKIFF_LISTENER_NAME_SASL_PLAINTEXT_PLAIN_SASL_JAAS_CONFIG", kJaas},
                      {"SKIFF_LISTENER_NAME_SASL_PLAINTEXT_SCRAM_SHA_256_SASL_JAAS_CONFIG",
                       "org.apache.kafka.common.security.scram.ScramLoginModule required;"},
                      {"SKIFF_LISTENER_NAME_SASL_PLAINTEXT_SASL_ENABLED_MECHANISMS", "PLAIN"}});
  const auto& s = c.sasl_for("SASL_PLAINTEXT");
  CHECK(s.jaas_config.at("PLAIN") == kJaas);
  CHECK(s.jaas_config.count("SCRAM-SHA-256") == 1);
  CHECK(s.enabled_mechanisms == std::vector<std::string>{"PLAIN"});
  CHECK(c.effective.count("listener.name.sasl_plaintext.plain.sasl.jaas.config") == 1);
}

TEST_CASE("a SASL listener needs a mechanism Skiff implements, and PLAIN its users", "[config][sasl]") {
  CHECK_THAT(error_of(sasl_listener({})), Catch::Contains("listener SASL_PLAINTEXT (SASL_PLAINTEXT): "
                                                          "sasl.enabled.mechanisms offers none of PLAIN"));
  CHECK_THAT(error_of(sasl_listener({"sasl.enabled.mechanisms=PLAIN"})),
             Catch::Contains("PLAIN is enabled but listener.name.sasl_plaintext.plain.sasl.jaas.config is not set"));
  auto c = load_with(sasl_listener({"sasl.enabled.mechanisms=GSSAPI,SCRAM-SHA-256"}));
  CHECK(c.sasl_for("SASL_PLAINTEXT").enabled_mechanisms == std::vector<std::string>{"SCRAM-SHA-256"});
  CHECK_THAT(c.warnings.back(), Catch::Contains("GSSAPI is not implemented"));
  // A bad JAAS value is refused without being echoed (it holds passwords).
  auto bad = error_of(sasl_listener({"listener.name.sasl_plaintext.plain.sasl.jaas.config=M required user_a=\"pw\""}));
  CHECK_THAT(bad, Catch::Contains("must end with ';'"));
  CHECK_THAT(bad, !Catch::Contains("pw"));
  CHECK_THAT(error_of({"listener.name.nope.plain.sasl.jaas.config=" + kJaas}),
             Catch::Contains("names listener 'nope'"));
  // Only per listener: Kafka's brokers read no unprefixed <mechanism>.sasl.jaas.config.
  CHECK_THAT(error_of({"plain.sasl.jaas.config=" + kJaas}), Catch::Contains("Unknown configuration"));
}

TEST_CASE("OAUTHBEARER is off unless listed, warned about, and reads Kafka's validator options", "[config][sasl]") {
  CHECK(load_with(sasl_listener({"sasl.enabled.mechanisms=SCRAM-SHA-512"})).sasl_for("SASL_PLAINTEXT").oauthbearer ==
        OAuthBearerOptions{});
  auto plain = load_with(sasl_listener({"sasl.enabled.mechanisms=OAUTHBEARER"}));
  CHECK(plain.sasl_for("SASL_PLAINTEXT").enabled_mechanisms == std::vector<std::string>{"OAUTHBEARER"});
  CHECK(plain.sasl_for("SASL_PLAINTEXT").oauthbearer == OAuthBearerOptions{});  // Kafka's defaults
  CHECK_THAT(plain.warnings.back(), Catch::Contains("OAUTHBEARER takes unsecured tokens"));
  const std::string jaas =
      "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required "
      R"(unsecuredValidatorPrincipalClaimName=" client_id" unsecuredValidatorScopeClaimName="scp" )"
      R"(unsecuredValidatorRequiredScope=" kafka  write" unsecuredValidatorAllowableClockSkewMs="3000";)";
  auto c = load_with(sasl_listener(
      {"sasl.enabled.mechanisms=OAUTHBEARER", "listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config=" + jaas}));
  const auto& o = c.sasl_for("SASL_PLAINTEXT").oauthbearer;
  CHECK(o.principal_claim == "client_id");
  CHECK(o.scope_claim == "scp");
  CHECK(o.required_scope == std::vector<std::string>{"kafka", "write"});
  CHECK(o.clock_skew_ms == 3000);
  CHECK_THAT(error_of(sasl_listener({"sasl.enabled.mechanisms=OAUTHBEARER",
                                     "listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config=M required "
                                     "unsecuredValidatorAllowableClockSkewMs=\"-1\";"})),
             Catch::Contains("unsecuredValidatorAllowableClockSkewMs must be an integer"));
}

namespace {

const std::string kValidator = "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler";

std::vector<std::string> jwt_listener(std::vector<std::string> more) {
  std::vector<std::string> all = sasl_listener({
      "sasl.enabled.mechanisms=OAUTHBEARER",
      "listener.name.sasl_plaintext.oauthbearer.sasl.server.callback.handler.class=" + kValidator,
      "sasl.oauthbearer.jwks.endpoint.url=https://idp/jwks",
      "skiff.sasl.oauthbearer.allowed.urls=https://idp/jwks,file:/etc/jwks.json",
  });
  all.insert(all.end(), more.begin(), more.end());
  return all;
}

}  // namespace

TEST_CASE("OAUTHBEARER's JWT validator: Kafka's keys, defaults and per-listener forms", "[config][sasl]") {
  auto c = load_with(jwt_listener(
      {"sasl.oauthbearer.expected.audience=kafka, other", "sasl.oauthbearer.expected.issuer=https://idp"}));
  const auto& s = c.sasl_for("SASL_PLAINTEXT");
  CHECK(s.oauthbearer_callback_handler == kValidator);
  const auto& o = s.oauthbearer_jwt;
  CHECK(o.jwks_endpoint_url == "https://idp/jwks");
  CHECK(o.expected_audience == std::vector<std::string>{"kafka", "other"});
  CHECK(o.jwks_refresh_ms == 3600000);
  CHECK(o.jwks_retry_backoff_ms == 100);
  CHECK(o.jwks_retry_backoff_max_ms == 10000);
  CHECK(o.clock_skew_s == 30);
  CHECK(o.sub_claim == "sub");
  CHECK(o.scope_claim == "scope");
  for (const auto& w : c.warnings) CHECK_THAT(w, !Catch::Contains("unsecured tokens"));
  // listener.name.<l>.sasl.oauthbearer.* over the broker-wide key, and the
  // mechanism-prefixed form over both, whatever their order.
  auto p = load_with(jwt_listener({"sasl.oauthbearer.expected.audience=a", "sasl.oauthbearer.expected.issuer=i",
                                   "listener.name.sasl_plaintext.sasl.oauthbearer.expected.audience=b",
                                   "listener.name.sasl_plaintext.oauthbearer.sasl.oauthbearer.expected.audience=c",
                                   "listener.name.sasl_plaintext.sasl.oauthbearer.clock.skew.seconds=5"}));
  CHECK(p.sasl_for("SASL_PLAINTEXT").oauthbearer_jwt.expected_audience == std::vector<std::string>{"c"});
  CHECK(p.sasl_for("SASL_PLAINTEXT").oauthbearer_jwt.clock_skew_s == 5);
  // The JWKS fetch's trust store, from the JAAS entry as Kafka reads it.
  auto t = load_with(
      jwt_listener({"sasl.oauthbearer.allow.unverified.audience=true", "sasl.oauthbearer.allow.unverified.issuer=true",
                    "listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config="
                    "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required "
                    "ssl.truststore.location=\"/ca.pem\" ssl.endpoint.identification.algorithm=\"\";"}));
  CHECK(t.sasl_for("SASL_PLAINTEXT").oauthbearer_jwt.truststore_location == "/ca.pem");
  CHECK_FALSE(t.sasl_for("SASL_PLAINTEXT").oauthbearer_jwt.verify_hostname);
}

TEST_CASE("OAUTHBEARER's JWT validator: what Kafka refuses to start with", "[config][sasl]") {
  const std::string aud = "sasl.oauthbearer.expected.audience=kafka", iss = "sasl.oauthbearer.expected.issuer=i";
  CHECK_THAT(error_of(jwt_listener({iss})), Catch::Contains("requires \"sasl.oauthbearer.expected.audience\""));
  CHECK_THAT(error_of(jwt_listener({aud})), Catch::Contains("requires \"sasl.oauthbearer.expected.issuer\""));
  CHECK_THAT(error_of(jwt_listener({aud, iss, "sasl.oauthbearer.jwks.endpoint.url="})),
             Catch::Contains("requires \"sasl.oauthbearer.jwks.endpoint.url\""));
  CHECK_THAT(error_of(jwt_listener({aud, iss, "sasl.oauthbearer.jwks.endpoint.url=https://other/jwks"})),
             Catch::Contains("The URL cannot be accessed due to restrictions"));
  CHECK_THAT(error_of(jwt_listener({aud, iss, "sasl.oauthbearer.jwks.endpoint.url=ftp://idp/jwks",
                                    "skiff.sasl.oauthbearer.allowed.urls=ftp://idp/jwks"})),
             Catch::Contains("invalid protocol (ftp)"));
  CHECK_THAT(error_of(jwt_listener({aud, iss, "sasl.oauthbearer.jwks.endpoint.refresh.ms=0"})),
             Catch::Contains("must be positive"));
  CHECK_THAT(error_of(sasl_listener({"sasl.enabled.mechanisms=OAUTHBEARER",
                                     "listener.name.sasl_plaintext.oauthbearer.sasl.server.callback.handler.class="
                                     "com.example.Mine"})),
             Catch::Contains("Skiff implements"));
  CHECK_THAT(error_of(jwt_listener({aud, iss, "sasl.oauthbearer.jwt.validator.class=com.example.V"})),
             Catch::Contains("Skiff implements"));
}

TEST_CASE("OAUTHBEARER's allowed URLs also come from KAFKA_OPTS' system property", "[config][sasl]") {
  auto overrides =
      sasl_listener({"sasl.enabled.mechanisms=OAUTHBEARER",
                     "listener.name.sasl_plaintext.oauthbearer.sasl.server.callback.handler.class=" + kValidator,
                     "sasl.oauthbearer.jwks.endpoint.url=https://idp/jwks", "sasl.oauthbearer.expected.audience=kafka",
                     "sasl.oauthbearer.expected.issuer=i"});
  auto c = load_with(overrides,
                     {{"KAFKA_OPTS", "-Xmx1g -Dorg.apache.kafka.sasl.oauthbearer.allowed.urls=https://idp/jwks,x"}});
  CHECK(c.oauthbearer_allowed_urls == std::vector<std::string>{"https://idp/jwks", "x"});
  CHECK_THAT(error_of(overrides), Catch::Contains("restrictions"));
  // Skiff's own key, from its environment variable.
  CHECK(load_with(overrides, {{"SKIFF_SKIFF_SASL_OAUTHBEARER_ALLOWED_URLS", "https://idp/jwks"}})
            .oauthbearer_allowed_urls == std::vector<std::string>{"https://idp/jwks"});
}
