// The skiff binary as a daemon: starts, binds, logs its startup line, exits 0
// on SIGTERM; bad configuration exits 2 naming the key; startup failures
// (port in use, unusable log dir) exit 1 with the reason.
#include <signal.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <string>
#include <vector>

#include "tests/support/broker_process.h"
#include "tests/support/raw_client.h"
#include "tests/support/test_certs.h"

using namespace skiff::test;

TEST_CASE("starts, logs its startup line, exits 0 on SIGTERM", "[lifecycle]") {
  BrokerProcess broker;
  auto out = broker.output();
  CHECK_THAT(out, Catch::Contains("Skiff ") && Catch::Contains("started in") && Catch::Contains("ms"));
  RawClient c("127.0.0.1", broker.port());
  CHECK(c.connected());
  c.close();
  CHECK(broker.stop(SIGTERM) == 0);
  CHECK_THAT(broker.output(), Catch::Contains("shutdown complete"));
}

TEST_CASE("SIGINT is a graceful shutdown too", "[lifecycle]") {
  BrokerProcess broker;
  CHECK(broker.stop(SIGINT) == 0);
}

TEST_CASE("bad configuration exits 2 with a message naming the key", "[lifecycle]") {
  auto r = run_skiff({"--override", "num.io.threads=zero"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("num.io.threads") && Catch::Contains("zero"));

  r = run_skiff({"--override", "no.such.key=1"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("no.such.key"));

  r = run_skiff({"--no-such-flag"});
  CHECK(r.exit_code == 2);

  auto dir = make_temp_dir("skiff-cfg");
  auto file = dir / "bad.yaml";
  std::ofstream(file) << "listeners: PLAINTEXT//nowhere\n";
  r = run_skiff({"--config", file.string()});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("listeners"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("the help and version and print-config flags", "[lifecycle]") {
  auto r = run_skiff({"--help"});
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("--override"));
  r = run_skiff({"--version"});
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::StartsWith("skiff "));
  r = run_skiff({"--print-config", "--override", "num.io.threads=2"});
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("num.io.threads") && Catch::Contains("command line"));
}

TEST_CASE("a port already in use exits 1 with the reason", "[lifecycle]") {
  BrokerProcess first;
  auto dir = make_temp_dir("skiff-second");
  auto r = run_skiff({"--override", "listeners=PLAINTEXT://127.0.0.1:" + std::to_string(first.port()), "--override",
                      "log.dirs=" + dir.string()});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.output, Catch::Contains("already in use"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("an unusable log dir exits 1 with the reason", "[lifecycle]") {
  auto dir = make_temp_dir("skiff-baddir");
  auto file = dir / "not-a-dir";
  std::ofstream(file) << "x";
  auto r = run_skiff(
      {"--override", "listeners=PLAINTEXT://127.0.0.1:0", "--override", "log.dirs=" + (file / "sub").string()});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.output, Catch::Contains("log dir"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("the healthcheck flag exits 0 against a ready broker and 1 when nothing answers",
          "[lifecycle][healthcheck]") {
  BrokerProcess broker;
  auto port = std::to_string(broker.port());
  auto r = run_skiff({"--healthcheck", "127.0.0.1:" + port});
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("healthy") && Catch::Contains("ApiVersions"));
  // Without an address: the first configured listener, a wildcard probed on loopback.
  r = run_skiff({"--healthcheck", "--override", "listeners=PLAINTEXT://0.0.0.0:" + port});
  CHECK(r.exit_code == 0);
  CHECK(broker.stop(SIGTERM) == 0);

  r = run_skiff({"--healthcheck", "127.0.0.1:" + port});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.output, Catch::Contains("unhealthy") && Catch::Contains("cannot connect"));
  r = run_skiff({"--healthcheck", "no-port-here"});
  CHECK(r.exit_code == 1);
  r = run_skiff({"--healthcheck", "--override", "listeners=PLAINTEXT://127.0.0.1:0"});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.output, Catch::Contains("--healthcheck HOST:PORT"));
}

namespace {

// The probe does not verify the broker's certificate: a self-signed one does.
std::filesystem::path make_server_pem(const std::filesystem::path& dir) {
  return make_self_signed_cert(dir, "server").pem;
}

// The overrides of a broker whose only listener is `protocol` on `port`
// (0: any), with TLS key material and a PLAIN user as needed; the same
// overrides make `--healthcheck` probe that listener.
std::vector<std::string> secured_args(const std::string& protocol, const std::string& port,
                                      const std::filesystem::path& pem) {
  std::vector<std::string> args = {"--override", "listeners=" + protocol + "://127.0.0.1:" + port, "--override",
                                   "listener.security.protocol.map=" + protocol + ":" + protocol};
  if (protocol.ends_with("SSL")) args.insert(args.end(), {"--override", "ssl.keystore.location=" + pem.string()});
  if (protocol.starts_with("SASL_")) {
    std::string lower = protocol == "SASL_SSL" ? "sasl_ssl" : "sasl_plaintext";
    args.insert(args.end(),
                {"--override", "sasl.enabled.mechanisms=PLAIN", "--override",
                 "listener.name." + lower +
                     ".plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required "
                     "user_admin=\"admin-secret\";"});
  }
  return args;
}

std::vector<std::string> healthcheck_args(std::vector<std::string> args) {
  args.insert(args.begin(), "--healthcheck");
  return args;
}

}  // namespace

TEST_CASE("the healthcheck probes SSL, SASL_SSL and SASL_PLAINTEXT listeners", "[lifecycle][healthcheck]") {
  TempDir dir("skiff-hc-tls");
  auto pem = make_server_pem(dir.path());
  for (std::string protocol : {"SSL", "SASL_SSL", "SASL_PLAINTEXT"}) {
    INFO(protocol);
    BrokerProcess broker(secured_args(protocol, "0", pem));
    auto port = std::to_string(broker.port());
    // From the configuration, as the container's HEALTHCHECK runs it.
    auto r = run_skiff(healthcheck_args(secured_args(protocol, port, pem)));
    INFO(r.output);
    CHECK(r.exit_code == 0);
    std::string endpoint = protocol;
    endpoint.append("://127.0.0.1:").append(port);
    CHECK_THAT(r.output, Catch::Contains(endpoint + " answered ApiVersions"));
    // From an address with the protocol before it.
    r = run_skiff({"--healthcheck", endpoint});
    CHECK(r.exit_code == 0);
    CHECK(broker.stop(SIGTERM) == 0);
  }
}

TEST_CASE("the healthcheck fails clearly when TLS and plaintext are mixed up", "[lifecycle][healthcheck]") {
  TempDir dir("skiff-hc-mixup");
  auto pem = make_server_pem(dir.path());
  BrokerProcess plain;
  auto plain_port = std::to_string(plain.port());
  // A TLS probe of a PLAINTEXT listener: the handshake fails, saying where and why.
  auto r = run_skiff({"--healthcheck", "SSL://127.0.0.1:" + plain_port});
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.output, Catch::Contains("unhealthy: TLS handshake with SSL://127.0.0.1:" + plain_port + " failed: ") &&
                           Catch::Contains("does not speak TLS"));

  BrokerProcess tls(secured_args("SSL", "0", pem));
  auto tls_port = std::to_string(tls.port());
  // A plaintext probe of an SSL listener.
  r = run_skiff({"--healthcheck", "127.0.0.1:" + tls_port});
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.output, Catch::Contains("unhealthy: 127.0.0.1:" + tls_port) &&
                           Catch::Contains("is the listener SSL or SASL_SSL?"));
  r = run_skiff({"--healthcheck", "TLS://127.0.0.1:" + tls_port});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.output, Catch::Contains("'TLS' is not a security protocol"));
}
