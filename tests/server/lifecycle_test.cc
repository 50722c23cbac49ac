// The skiff binary as a daemon: starts, binds, logs its startup line, exits 0
// on SIGTERM; bad configuration exits 2 naming the key; startup failures
// (port in use, unusable log dir) exit 1 with the reason.
#include <signal.h>

#include <catch2/catch.hpp>
#include <fstream>

#include "tests/support/broker_process.h"
#include "tests/support/raw_client.h"

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
