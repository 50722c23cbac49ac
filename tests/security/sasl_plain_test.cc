// PLAIN on the server side (security/sasl/plain_server.h) and the table of SASL
// mechanisms per listener (security/sasl/sasl_mechanisms.h): Kafka's answers and
// messages, users from the listener's JAAS entry.
#include <catch2/catch.hpp>

#include "config/config_loader.h"
#include "security/sasl/plain_server.h"
#include "security/sasl/sasl_mechanisms.h"

using namespace skiff::sasl;
using namespace std::string_literals;

namespace {

const std::string kJaas =
    R"(org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="a" )"
    R"(user_admin="admin-secret" user_alice="alice-secret";)";

SaslStep plain(std::string_view token) {
  auto users = std::make_shared<const PlainUsers>(plain_users_from_jaas(kJaas));
  return make_plain_server(users)->step(token);
}

}  // namespace

TEST_CASE("PLAIN: the users are the JAAS entry's user_<name> options", "[sasl]") {
  auto users = plain_users_from_jaas(kJaas);
  CHECK(users == PlainUsers{{"admin", "admin-secret"}, {"alice", "alice-secret"}});
}

TEST_CASE("PLAIN authenticates a user with the right password", "[sasl]") {
  auto ok = plain("\0alice\0alice-secret"s);
  CHECK(ok.outcome == SaslStep::Outcome::kComplete);
  CHECK(ok.user == "alice");
  CHECK(ok.token.empty());
  CHECK(plain("alice\0alice\0alice-secret"s).outcome == SaslStep::Outcome::kComplete);  // authzid = user
}

TEST_CASE("PLAIN refuses with Kafka's messages", "[sasl]") {
  auto error = [](std::string_view token) {
    auto s = plain(token);
    CHECK(s.outcome == SaslStep::Outcome::kFailed);
    return s.error;
  };
  CHECK(error("\0alice\0wrong"s) == "Authentication failed: Invalid username or password");
  CHECK(error("\0mallory\0alice-secret"s) == "Authentication failed: Invalid username or password");
  CHECK(error("\0alice\0alice-secre"s) == "Authentication failed: Invalid username or password");
  CHECK(error("\0\0x"s) == "Authentication failed: username not specified");
  CHECK(error("\0alice\0"s) == "Authentication failed: password not specified");
  CHECK(error("alice") == "Invalid SASL/PLAIN response: expected 3 tokens, got 1");
  CHECK(error("\0a\0b\0c"s) == "Invalid SASL/PLAIN response: expected 3 tokens, got 4");
  CHECK(error("admin\0alice\0alice-secret"s) ==
        "Authentication failed: Client requested an authorization id that is different from username");
  CHECK(plain("\0mallory\0x"s).log_detail == "user 'mallory'");  // logged, escaped by the caller
}

TEST_CASE("SaslMechanisms: per listener, only what is enabled and available", "[sasl]") {
  auto c = skiff::config::load_config(
      {std::nullopt,
       {},
       {"listeners=PLAINTEXT://:9092,A://:9093,B://:9094",
        "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,A:SASL_PLAINTEXT,B:SASL_PLAINTEXT",
        "sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-512", "listener.name.a.plain.sasl.jaas.config=" + kJaas,
        "listener.name.b.sasl.enabled.mechanisms=SCRAM-SHA-512", "listener.name.a.connections.max.reauth.ms=5000"}});
  SaslMechanisms without_scram(c, nullptr);
  CHECK(without_scram.enabled("A") == std::vector<std::string>{"PLAIN"});
  CHECK(without_scram.enabled("B").empty());
  CHECK(without_scram.enabled("PLAINTEXT").empty());
  CHECK(without_scram.start("A", "PLAIN") != nullptr);
  CHECK(without_scram.start("A", "SCRAM-SHA-512") == nullptr);
  CHECK(without_scram.start("PLAINTEXT", "PLAIN") == nullptr);
  CHECK(without_scram.max_reauth_ms("A") == 5000);
  CHECK(without_scram.max_reauth_ms("B") == 0);
  std::vector<std::string> asked;
  SaslMechanisms with_scram(c, [&](const std::string& m) {
    asked.push_back(m);
    return make_plain_server(std::make_shared<const PlainUsers>());
  });
  CHECK(with_scram.enabled("A") == std::vector<std::string>{"PLAIN", "SCRAM-SHA-512"});
  CHECK(with_scram.start("B", "SCRAM-SHA-512") != nullptr);
  CHECK(with_scram.start("B", "PLAIN") == nullptr);
  CHECK(asked == std::vector<std::string>{"SCRAM-SHA-512"});
}
