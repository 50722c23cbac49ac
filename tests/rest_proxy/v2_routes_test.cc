#include "apps/rest_proxy/v2_routes.h"

#include <catch2/catch.hpp>

#include "common/json.h"

namespace skiff::restproxy {
namespace {

// A Kafka that closes every request: a route that reaches it fails.
class ClosingHandler : public network::RequestHandler {
 public:
  void handle(network::Request request, network::ResponseSender& sender) override {
    ++calls;
    network::Response r;
    r.context = request.context;
    r.action = network::Response::Action::kClose;
    sender.send_response(std::move(r));
  }
  int calls = 0;
};

struct V2Fixture {
  ClosingHandler handler;
  client::InProcessSender sender;
  RestLimits limits;
  ConsumerInstances consumers{std::nullopt, nullptr, limits};
  V2Services services{RestKafka{handler, sender, "REST_PROXY"}, consumers, nullptr};

  std::optional<network::HttpResponse> call(const std::string& method, const std::vector<std::string>& path,
                                            const std::string& body = "",
                                            const std::string& type = "application/vnd.kafka.v2+json",
                                            const std::string& user = "") {
    network::HttpRequest req;
    req.method = method;
    req.body = body;
    req.content_type = type;
    RestCall c{req, path, "User:ANONYMOUS", user, "http://127.0.0.1:8082", limits};
    return dispatch_v2(services, c);
  }
};

int64_t code_in(const network::HttpResponse& r) {
  auto json = parse_json(r.body);
  if (!json || !json->find("error_code")) return 0;
  return static_cast<int64_t>(json->find("error_code")->number);
}

}  // namespace

TEST_CASE("v2 routes: paths that are not v2's are left to the app", "[rest_proxy]") {
  V2Fixture f;
  CHECK_FALSE(f.call("GET", {"nothing"}).has_value());
  CHECK_FALSE(f.call("GET", {"consumers", "g", "elsewhere", "x"}).has_value());
  CHECK(f.handler.calls == 0);
}

TEST_CASE("v2 routes: bad produce bodies get Confluent's 4xx before Kafka is asked", "[rest_proxy]") {
  V2Fixture f;
  auto r = f.call("POST", {"topics", "t"}, "{not json", "application/vnd.kafka.binary.v2+json");
  REQUIRE(r);
  CHECK(r->status == 400);
  r = f.call("POST", {"topics", "t"}, "{}", "application/vnd.kafka.xml.v2+json");
  CHECK(r->status == 415);
  r = f.call("POST", {"topics", "t", "partitions", "x"}, "{}", "application/vnd.kafka.binary.v2+json");
  CHECK(r->status == 404);
  CHECK(r->content_type == "application/vnd.kafka.v2+json");
  CHECK(f.handler.calls == 0);
}

TEST_CASE("v2 routes: a body past max_request_bytes is 413", "[rest_proxy]") {
  V2Fixture f;
  f.limits.max_request_bytes = 10;
  auto r = f.call("POST", {"topics", "t"}, std::string(11, ' '), "application/vnd.kafka.binary.v2+json");
  REQUIRE(r);
  CHECK(r->status == 413);
  CHECK(code_in(*r) == 41301);
}

TEST_CASE("v2 routes: a Kafka that fails is a 5xx in v2's shape", "[rest_proxy]") {
  V2Fixture f;
  auto r = f.call("GET", {"topics"});
  REQUIRE(r);
  CHECK(r->status >= 500);
  CHECK(code_in(*r) >= 50000);
  CHECK(f.handler.calls == 1);
}

TEST_CASE("v2 routes: consumer instances are created, found only by their user, deleted", "[rest_proxy]") {
  V2Fixture f;
  auto r = f.call("POST", {"consumers", "g"}, R"({"name": "c1", "format": "json", "auto.offset.reset": "earliest"})",
                  "application/vnd.kafka.v2+json", "alice");
  REQUIRE(r);
  REQUIRE(r->status == 200);
  auto body = parse_json(r->body);
  REQUIRE(body);
  CHECK(body->find("instance_id")->string == "c1");
  CHECK(body->find("base_uri")->string == "http://127.0.0.1:8082/consumers/g/instances/c1");

  r = f.call("POST", {"consumers", "g"}, R"({"name": "c1"})", "application/vnd.kafka.v2+json", "alice");
  CHECK(r->status == 409);
  CHECK(code_in(*r) == 40902);
  r = f.call("POST", {"consumers", "g"}, R"({"name": "c2", "format": "xml"})");
  CHECK(r->status == 422);
  CHECK(code_in(*r) == 42204);

  r = f.call("POST", {"consumers", "g", "instances", "c1", "subscription"}, R"({"topics": ["a", "b"]})",
             "application/vnd.kafka.v2+json", "alice");
  CHECK(r->status == 204);
  r = f.call("GET", {"consumers", "g", "instances", "c1", "subscription"}, "", "", "alice");
  CHECK(r->body == R"({"topics":["a","b"]})");
  r = f.call("GET", {"consumers", "g", "instances", "c1", "subscription"}, "", "", "mallory");
  CHECK(r->status == 404);
  CHECK(code_in(*r) == 40403);
  r = f.call("POST", {"consumers", "g", "instances", "c1", "subscription"}, R"({"topics": "a"})",
             "application/vnd.kafka.v2+json", "alice");
  CHECK(r->status == 422);
  r = f.call("PUT", {"consumers", "g", "instances", "c1", "records"}, "", "", "alice");
  CHECK(r->status == 405);

  r = f.call("DELETE", {"consumers", "g", "instances", "c1"}, "", "", "alice");
  CHECK(r->status == 204);
  r = f.call("DELETE", {"consumers", "g", "instances", "c1"}, "", "", "alice");
  CHECK(r->status == 404);
  CHECK(code_in(*r) == 40403);
}

TEST_CASE("v2 routes: manual assignment and its listing", "[rest_proxy]") {
  V2Fixture f;
  REQUIRE(f.call("POST", {"consumers", "g"}, R"({"name": "m"})")->status == 200);
  auto r = f.call("POST", {"consumers", "g", "instances", "m", "assignments"},
                  R"({"partitions": [{"topic": "t", "partition": 1}, {"topic": "t", "partition": 0}]})");
  CHECK(r->status == 204);
  r = f.call("GET", {"consumers", "g", "instances", "m", "assignments"});
  CHECK(r->body == R"({"partitions":[{"topic":"t","partition":0},{"topic":"t","partition":1}]})");
  r = f.call("POST", {"consumers", "g", "instances", "m", "positions"},
             R"({"offsets": [{"topic": "t", "partition": 9, "offset": 3}]})");
  CHECK(r->status == 409);
  CHECK(code_in(*r) == 40903);
  r = f.call("POST", {"consumers", "g", "instances", "m", "assignments"}, R"({"partitions": [{"topic": "t"}]})");
  CHECK(r->status == 422);
  for (const char* bad : {"1e300", "-1", "1.5", "9223372036854775807", "\"x\""}) {
    r = f.call("POST", {"consumers", "g", "instances", "m", "assignments"},
               std::string(R"({"partitions": [{"topic": "t", "partition": )") + bad + "}]}");
    CHECK(r->status == 422);
  }
  CHECK(f.handler.calls == 0);
}

}  // namespace skiff::restproxy
