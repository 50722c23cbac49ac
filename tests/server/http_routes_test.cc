// The broker's HTTP routes and listener start (server/http_routes.h):
// /readyz follows Readiness, /healthz always answers, /metrics waits for
// the metrics to be published; http.listeners empty
// means no server, a busy port is an error when set and a warning at the
// default.
#include "server/http_routes.h"

#include <catch2/catch.hpp>

#include "config/config_loader.h"
#include "tests/support/http_client.h"

using namespace skiff;
using skiff::test::HttpClient;
using State = server::Readiness::State;

namespace {

config::BrokerConfig config_with(const std::string& http_listeners) {
  return config::load_config({std::nullopt, {}, {"http.listeners=" + http_listeners}});
}

}  // namespace

TEST_CASE("/readyz follows the broker's readiness, /healthz always answers", "[http]") {
  server::Readiness readiness;
  server::PublishedMetrics metrics;
  console::ConsoleHost console;
  auto http = server::start_http_server(config_with("http://127.0.0.1:0"), {readiness, metrics, console});
  REQUIRE(http);
  HttpClient c(http->endpoints().at(0).port());
  auto expect = [&](const char* path, int status, const char* body) {
    auto r = c.get(path);
    REQUIRE(r);
    CHECK(r->status == status);
    CHECK(r->body == body);
  };
  expect("/healthz", 200, "ok\n");
  expect("/readyz", 503, "not ready: starting\n");
  expect("/metrics", 503, "not ready: metrics appear once the logs are loaded\n");
  readiness.set(State::kLoadingLogs);
  expect("/readyz", 503, "not ready: loading logs\n");
  readiness.set(State::kStartingListeners);
  expect("/readyz", 503, "not ready: starting the Kafka listeners\n");
  readiness.set(State::kReady);
  expect("/readyz", 200, "ready\n");
  readiness.set(State::kShuttingDown);
  expect("/readyz", 503, "not ready: shutting down\n");
  expect("/healthz", 200, "ok\n");
  CHECK_THAT(server::http_summary(http.get()), Catch::StartsWith("HTTP on 127.0.0.1:"));
}

TEST_CASE("http.listeners: empty is off, a busy port fails when set, warns at the default", "[http]") {
  server::Readiness readiness;
  server::PublishedMetrics metrics;
  console::ConsoleHost console;
  CHECK(server::start_http_server(config_with(""), {readiness, metrics, console}) == nullptr);
  CHECK(server::http_summary(nullptr) == "HTTP off");

  auto holder = server::start_http_server(config_with("http://127.0.0.1:0"), {readiness, metrics, console});
  REQUIRE(holder);
  auto busy = config_with("http://127.0.0.1:" + std::to_string(holder->endpoints().at(0).port()));
  CHECK_THROWS_WITH(server::start_http_server(busy, {readiness, metrics, console}), Catch::Contains("already in use"));

  auto by_default = config::load_config({std::nullopt, {}, {}});
  by_default.http_listeners = busy.http_listeners;  // as if the default port were taken
  CHECK(server::start_http_server(by_default, {readiness, metrics, console}) == nullptr);
}
