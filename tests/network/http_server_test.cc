// HttpServer over a real loopback socket: routing, 404/405, HEAD, limits
// (431, 413), malformed requests (400 and close), a throwing handler (500),
// keep-alive, query decoding, the connection cap and the idle timeout.
#include "network/http_server.h"

#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/http_client.h"

using namespace skiff;
using skiff::test::HttpClient;
using skiff::test::HttpReply;

namespace {

struct Fixture {
  explicit Fixture(network::HttpServerConfig config = {}) : server(config) {
    server.route("GET", "/hello", [](const network::HttpRequest&) {
      network::HttpResponse r;
      r.body = "hi";
      r.headers.emplace_back("X-Test", "1");
      return r;
    });
    server.route("GET", "/query", [](const network::HttpRequest& req) {
      network::HttpResponse r;
      for (const auto& [k, v] : req.query) r.body.append("[").append(k).append("=").append(v).append("]");
      return r;
    });
    server.route("POST", "/echo", [](const network::HttpRequest& req) {
      network::HttpResponse r;
      r.body = req.path + " " + std::to_string(req.body.size());
      return r;
    });
    server.route("GET", "/throw", [](const network::HttpRequest&) -> network::HttpResponse {
      throw std::runtime_error("boom\nforged line");
    });
    server.bind("127.0.0.1", 0);
    server.start();
    port = server.endpoints().at(0).port();
  }
  network::HttpServer server;
  uint16_t port = 0;
};

}  // namespace

TEST_CASE("HttpServer: routes, 404, 405 with Allow", "[http]") {
  Fixture f;
  HttpClient c(f.port);
  auto r = c.get("/hello");
  REQUIRE(r);
  CHECK(r->status == 200);
  CHECK(r->body == "hi");
  CHECK(r->headers["content-type"] == "text/plain; charset=utf-8");
  CHECK(r->headers["x-test"] == "1");
  r = c.get("/nowhere");
  REQUIRE(r);
  CHECK(r->status == 404);
  r = c.get("/hello", "DELETE");
  REQUIRE(r);
  CHECK(r->status == 405);
  CHECK(r->headers["allow"] == "GET, HEAD");
  r = c.get("/hello?x=1");  // the query is not part of the path
  REQUIRE(r);
  CHECK(r->status == 200);
}

TEST_CASE("HttpServer: a fallback answers what no route matches, routes still win", "[http]") {
  network::HttpServer server;
  server.route("GET", "/exact", [](const network::HttpRequest&) {
    return network::HttpResponse{200, "text/plain", "route", {}};
  });
  server.set_fallback([](const network::HttpRequest& req) {
    return network::HttpResponse{418, "text/plain", req.method + " " + req.path, {}};
  });
  server.bind("127.0.0.1", 0);
  server.start();
  HttpClient c(server.endpoints().at(0).port());
  auto r = c.get("/exact");
  REQUIRE(r);
  CHECK(r->body == "route");
  r = c.get("/subjects/a%2Fb/versions?x=1", "DELETE");
  REQUIRE(r);
  CHECK(r->status == 418);
  CHECK(r->body == "DELETE /subjects/a%2Fb/versions");
}

TEST_CASE("HttpServer: HEAD answers like GET without the body", "[http]") {
  Fixture f;
  HttpClient c(f.port);
  auto r = c.get("/hello", "HEAD");
  REQUIRE(r);
  CHECK(r->status == 200);
  CHECK(r->headers["content-length"] == "2");
  // No body bytes were sent: the next response on the connection parses.
  r = c.get("/hello");
  REQUIRE(r);
  CHECK(r->body == "hi");
}

TEST_CASE("HttpServer: keep-alive serves several (pipelined) requests on one connection", "[http]") {
  Fixture f;
  HttpClient c(f.port);
  REQUIRE(
      c.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\nPOST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nabcde"));
  auto first = c.read();
  auto second = c.read();
  REQUIRE(first);
  REQUIRE(second);
  CHECK(first->body == "hi");
  CHECK(second->body == "/echo 5");
  REQUIRE(c.send("GET /hello HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"));
  auto last = c.read();
  REQUIRE(last);
  CHECK(last->headers["connection"] == "close");
  CHECK(c.closed());
}

TEST_CASE("HttpServer: query values are percent-decoded", "[http]") {
  Fixture f;
  HttpClient c(f.port);
  auto r = c.get("/query?name=a%20b+c&slash=%2F&empty=&flag&name=second&%41=%e2%82%ac");
  REQUIRE(r);
  CHECK(r->status == 200);
  CHECK(r->body == "[A=\xe2\x82\xac][empty=][flag=][name=a b c][slash=/]");
  r = c.get("/query?bad=%zz");
  REQUIRE(r);
  CHECK(r->status == 400);
  r = c.get("/hello");  // a bad query is the request's fault, not the connection's
  REQUIRE(r);
  CHECK(r->status == 200);
}

TEST_CASE("HttpServer: a throwing handler answers 500 and the server goes on", "[http]") {
  Fixture f;
  HttpClient c(f.port);
  auto r = c.get("/throw");
  REQUIRE(r);
  CHECK(r->status == 500);
  r = c.get("/hello");
  REQUIRE(r);
  CHECK(r->status == 200);
}

TEST_CASE("HttpServer: malformed requests get 400 and lose only their connection", "[http]") {
  Fixture f;
  HttpClient good(f.port);
  REQUIRE(good.get("/hello"));
  for (const std::string& garbage :
       std::vector<std::string>{"GARBAGE\r\n\r\n", "GET /hello HTTP/1.1\r\nContent-Length: x\r\n\r\n",
                                "GET /hello HTTP/1.1\r\nBad Header\r\n\r\n",
                                std::string("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n", 15)}) {
    HttpClient bad(f.port);
    REQUIRE(bad.send(garbage));
    auto r = bad.read();
    REQUIRE(r);
    CHECK(r->status == 400);
    CHECK(r->headers["connection"] == "close");
    CHECK(bad.closed());
  }
  auto r = good.get("/hello");
  REQUIRE(r);
  CHECK(r->status == 200);
}

TEST_CASE("HttpServer: header and body limits answer 431 and 413, then close", "[http]") {
  Fixture f;
  {
    HttpClient c(f.port);
    REQUIRE(c.send("GET /hello HTTP/1.1\r\nHost: t\r\nX-Big: " + std::string(9000, 'a') + "\r\n\r\n"));
    auto r = c.read();
    REQUIRE(r);
    CHECK(r->status == 431);
    CHECK(c.closed());
  }
  {
    HttpClient c(f.port);
    REQUIRE(c.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2000000\r\n\r\n"));
    auto r = c.read();
    REQUIRE(r);
    CHECK(r->status == 413);
    CHECK(c.closed());
  }
  {
    HttpClient c(f.port);  // chunked, over the limit as it arrives
    std::string chunk = "80000\r\n" + std::string(0x80000, 'x') + "\r\n";
    REQUIRE(c.send("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n" + chunk + chunk + chunk));
    auto r = c.read();
    REQUIRE(r);
    CHECK(r->status == 413);
  }
  HttpClient c(f.port);  // just under the limit is fine
  REQUIRE(c.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 1048576\r\n\r\n" + std::string(1048576, 'y')));
  auto r = c.read();
  REQUIRE(r);
  CHECK(r->body == "/echo 1048576");
}

TEST_CASE("HttpServer: connections beyond the cap are closed, idle ones time out", "[http]") {
  network::HttpServerConfig config;
  config.max_connections = 2;
  config.limits.idle_timeout = std::chrono::milliseconds(1500);
  Fixture f(config);
  auto a = std::make_unique<HttpClient>(f.port);
  HttpClient b(f.port);
  REQUIRE(a->get("/hello"));
  REQUIRE(b.get("/hello"));
  HttpClient over(f.port);
  CHECK(over.closed());
  a.reset();
  std::optional<HttpReply> r;
  for (int i = 0; i < 100 && !r; ++i) {  // the slot frees once the server sees the close
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    r = HttpClient(f.port).get("/hello");
  }
  REQUIRE(r);
  CHECK(r->status == 200);
  auto started = std::chrono::steady_clock::now();
  CHECK(b.closed());  // idle past the timeout
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(4));
}

TEST_CASE("HttpServer: a port in use is a BindError saying so, stop is idempotent", "[http]") {
  Fixture f;
  network::HttpServer other;
  CHECK_THROWS_WITH(other.bind("127.0.0.1", f.port), Catch::Contains("already in use"));
  f.server.stop();
  f.server.stop();
  HttpClient c(f.port);
  CHECK(!c.get("/hello"));
}
