// Confluent's REST API over RegistryService (apps/schema_registry/
// registry_http.h), called as the HTTP listener calls it: routes and their
// parameters, bodies, answers and error bodies as Confluent writes them.
// The schemas are the fake format's (fake_format.h).
#include "apps/schema_registry/registry_http.h"

#include <catch2/catch.hpp>

#include "common/json.h"
#include "fake_format.h"
#include "fake_log.h"

using namespace skiff;
using namespace skiff::schemareg;

namespace {

struct Rest {
  testing::FakeLog log;
  RegistryService service{log, testing::parse_fake};
  metrics::Registry metrics;
  RegistryHttp http{service, RegistryHttpConfig{"cluster-1", &metrics, {}}};

  network::HttpResponse call(const std::string& method, const std::string& target, const std::string& body = "") {
    network::HttpRequest r;
    r.method = method;
    r.target = target;
    const auto q = target.find('?');
    r.path = target.substr(0, q);
    if (q != std::string::npos) {
      std::string_view query(target);
      query.remove_prefix(q + 1);
      while (!query.empty()) {
        auto amp = query.find('&');
        auto kv = query.substr(0, amp);
        auto eq = kv.find('=');
        r.query[std::string(kv.substr(0, eq))] = eq == std::string::npos ? "" : std::string(kv.substr(eq + 1));
        query.remove_prefix(amp == std::string::npos ? query.size() : amp + 1);
      }
    }
    r.body = body;
    r.content_type = "application/vnd.schemaregistry.v1+json";
    return http.answer(r);
  }
};

std::string schema_body(const std::string& text) { return R"({"schema":")" + text + R"("})"; }

}  // namespace

TEST_CASE("REST: register, read back by id, version and subject, as Confluent answers", "[schemareg][rest]") {
  Rest r;
  auto reg = r.call("POST", "/subjects/orders-value/versions", schema_body("a:int"));
  CHECK(reg.status == 200);
  CHECK(reg.content_type == "application/vnd.schemaregistry.v1+json");
  CHECK(reg.body == R"({"id":1})");
  CHECK(r.call("GET", "/schemas/ids/1").body == R"({"schema":"a:int"})");
  CHECK(r.call("GET", "/schemas/ids/1/schema").body == "a:int");
  CHECK(r.call("GET", "/schemas/ids/1/subjects").body == R"(["orders-value"])");
  CHECK(r.call("GET", "/schemas/ids/1/versions").body == R"([{"subject":"orders-value","version":1}])");
  CHECK(r.call("GET", "/subjects").body == R"(["orders-value"])");
  CHECK(r.call("GET", "/subjects/orders-value/versions").body == "[1]");
  CHECK(r.call("GET", "/subjects/orders-value/versions/latest").body ==
        R"({"subject":"orders-value","version":1,"id":1,"schema":"a:int"})");
  CHECK(r.call("POST", "/subjects/orders-value", schema_body("a:int")).body ==
        R"({"subject":"orders-value","version":1,"id":1,"schema":"a:int"})");
  // The same schema under another subject keeps its id.
  CHECK(r.call("POST", "/subjects/other/versions", schema_body("a:int")).body == R"({"id":1})");
}

TEST_CASE("REST: Confluent's error bodies and codes", "[schemareg][rest]") {
  Rest r;
  auto e = r.call("GET", "/subjects/none/versions/1");
  CHECK(e.status == 404);
  CHECK(e.body == R"({"error_code":40401,"message":"Subject 'none' not found."})");
  CHECK(r.call("GET", "/schemas/ids/7").body == R"({"error_code":40403,"message":"Schema 7 not found"})");
  CHECK(r.call("GET", "/nowhere").body == R"({"error_code":404,"message":"HTTP 404 Not Found"})");
  CHECK(r.call("PATCH", "/subjects").status == 405);
  CHECK(r.call("POST", "/subjects/s/versions", "not json").status == 400);
  auto bad = r.call("POST", "/subjects/s/versions", schema_body("nocolon"));
  CHECK(bad.status == 422);
  CHECK(bad.body.find(R"("error_code":42201)") != std::string::npos);
  CHECK(
      r.call("PUT", "/config", R"({"compatibility":"SIDEWAYS"})").body ==
      R"({"error_code":42203,"message":"Invalid compatibility level. Valid values are none, backward, forward, full, backward_transitive, forward_transitive, and full_transitive"})");
  CHECK(r.call("GET", "/subjects/s/versions/zero").status == 422);
}

TEST_CASE("REST: compatibility checks, config and mode", "[schemareg][rest]") {
  Rest r;
  REQUIRE(r.call("POST", "/subjects/s/versions", schema_body("a:int")).status == 200);
  CHECK(r.call("POST", "/compatibility/subjects/s/versions/latest", schema_body("a:int b:int=0")).body ==
        R"({"is_compatible":true})");
  auto no = r.call("POST", "/compatibility/subjects/s/versions?verbose=true", schema_body("a:int b:int"));
  CHECK(no.status == 200);
  CHECK(no.body.find(R"("is_compatible":false,"messages":[)") != std::string::npos);
  CHECK(r.call("POST", "/subjects/s/versions", schema_body("a:int b:int")).status == 409);
  CHECK(r.call("PUT", "/config/s", R"({"compatibility":"NONE"})").body == R"({"compatibility":"NONE"})");
  CHECK(r.call("GET", "/config/s").body == R"({"compatibilityLevel":"NONE"})");
  CHECK(r.call("POST", "/subjects/s/versions", schema_body("a:int b:int")).body == R"({"id":2})");
  CHECK(r.call("GET", "/mode").body == R"({"mode":"READWRITE"})");
  CHECK(r.call("PUT", "/mode", R"({"mode":"READONLY"})").body == R"({"mode":"READONLY"})");
  CHECK(r.call("POST", "/subjects/s/versions", schema_body("c:int")).status == 422);
  const std::string scrape = r.metrics.scrape();
  CHECK(scrape.find(R"(skiff_schema_registry_requests_total{endpoint="POST /subjects/{}/versions",status="409"} 1)") !=
        std::string::npos);
  CHECK(scrape.find(R"(skiff_schema_registry_request_seconds_count{endpoint="GET /mode"} 1)") != std::string::npos);
  CHECK(
      r.call("GET", "/v1/metadata/id").body ==
      R"({"scope":{"path":[],"clusters":{"kafka-cluster":"cluster-1","schema-registry-cluster":"schema-registry"}}})");
}

TEST_CASE("REST: deletes, soft then hard, and percent-encoded subjects", "[schemareg][rest]") {
  Rest r;
  REQUIRE(r.call("POST", "/subjects/a%2Fb/versions", schema_body("a:int")).status == 200);
  CHECK(r.call("GET", "/subjects").body == R"(["a/b"])");
  CHECK(r.call("DELETE", "/subjects/a%2Fb?permanent=true").status == 404);  // 40405: soft first
  CHECK(r.call("DELETE", "/subjects/a%2Fb").body == "[1]");
  CHECK(r.call("GET", "/subjects").body == "[]");
  CHECK(r.call("GET", "/subjects?deleted=true").body == R"(["a/b"])");
  CHECK(r.call("DELETE", "/subjects/a%2Fb?permanent=true").body == "[1]");
  CHECK(r.call("GET", "/subjects?deleted=true").body == "[]");
}

TEST_CASE("REST: a request without the credentials the broker wants is 401", "[schemareg][rest]") {
  testing::FakeLog log;
  RegistryService service{log, testing::parse_fake};
  RegistryHttpConfig config;
  config.authenticate = [](const std::string& a) -> std::optional<std::string> {
    return a == "Basic dTpw" ? std::optional<std::string>("u") : std::nullopt;
  };
  RegistryHttp http{service, config};
  network::HttpRequest req;
  req.method = "GET";
  req.target = req.path = "/subjects";
  auto denied = http.answer(req);
  CHECK(denied.status == 401);
  CHECK(denied.body == R"({"error_code":401,"message":"Unauthorized"})");
  req.authorization = "Basic dTpw";
  CHECK(http.answer(req).status == 200);
}

TEST_CASE("REST: writes need may_write (ALTER on the cluster), reads do not", "[schemareg][rest]") {
  testing::FakeLog log;
  RegistryService service{log, testing::parse_fake};
  RegistryHttpConfig config;
  config.may_write = [](const std::string& user, const std::string& host) {
    return user == "admin" && host == "10.0.0.1";
  };
  config.authenticate = [](const std::string& a) -> std::optional<std::string> { return a.empty() ? "bob" : a; };
  RegistryHttp http{service, config};
  auto req = [](std::string method, std::string path, std::string auth, std::string body = "") {
    network::HttpRequest r;
    r.method = std::move(method);
    r.target = r.path = std::move(path);
    r.authorization = std::move(auth);
    r.peer_address = "10.0.0.1";
    r.body = std::move(body);
    return r;
  };
  auto denied = http.answer(req("POST", "/subjects/s/versions", "", R"({"schema":"a:int"})"));
  CHECK(denied.status == 403);
  CHECK(denied.body.find(R"("error_code":40301)") != std::string::npos);
  CHECK(http.answer(req("PUT", "/mode", "", R"({"mode":"READONLY"})")).status == 403);
  CHECK(http.answer(req("POST", "/subjects/s/versions", "admin", R"({"schema":"a:int"})")).status == 200);
  CHECK(http.answer(req("GET", "/subjects/s/versions/1", "")).status == 200);
  CHECK(http.answer(req("POST", "/subjects/s", "", R"({"schema":"a:int"})")).status == 200);  // a lookup reads
}
