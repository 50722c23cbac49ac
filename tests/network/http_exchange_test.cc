// Asynchronous HTTP routes (network/http_exchange.h) over a real loopback
// socket: an answer from another thread while the HTTP thread serves other
// connections, a streamed (chunked) answer under backpressure, a streamed
// request body (chunked and Content-Length) under flow control, an exchange
// dropped unanswered (500), Expect: 100-continue, and the connection closing
// or the server stopping while a route waits or streams (its calls return).
// The routes' threads assert nothing (Catch2 is not thread-safe): they
// record what they saw, the test thread checks it after joining them.
#include <atomic>
#include <catch2/catch.hpp>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "network/http_server.h"
#include "tests/support/http_client.h"

using namespace skiff;
using skiff::test::HttpClient;

namespace {

// Threads the routes start; joined before the server goes.
struct Threads {
  ~Threads() { join(); }
  void join() {
    for (auto& t : all)
      if (t.joinable()) t.join();
  }
  std::mutex mu;
  std::vector<std::thread> all;
  template <class F>
  void spawn(F f) {
    std::lock_guard lock(mu);
    all.emplace_back(std::move(f));
  }
};

struct ChunkedReply {
  int status = 0;
  std::string head;
  std::string body;
  bool complete = false;  // the last chunk arrived
};

// Reads one chunked answer from `c` (whatever follows stays unread).
ChunkedReply read_chunked(HttpClient& c, std::string& pending) {
  ChunkedReply r;
  auto more = [&] {
    auto got = c.raw().read_some();
    pending += got;
    return !got.empty();
  };
  size_t end;
  while ((end = pending.find("\r\n\r\n")) == std::string::npos)
    if (!more()) return r;
  r.head = pending.substr(0, end);
  r.status = std::stoi(r.head.substr(9, 3));
  pending.erase(0, end + 4);
  for (;;) {
    size_t eol;
    while ((eol = pending.find("\r\n")) == std::string::npos)
      if (!more()) return r;
    const size_t size = std::stoul(pending.substr(0, eol), nullptr, 16);
    while (pending.size() < eol + 2 + size + 2)
      if (!more()) return r;
    r.body += pending.substr(eol + 2, size);
    pending.erase(0, eol + 2 + size + 2);
    if (size == 0) {
      r.complete = true;
      return r;
    }
  }
}

std::string piece(int i, size_t size) {
  std::string s(size, static_cast<char>('a' + i % 26));
  s.replace(0, std::min(size, std::to_string(i).size()), std::to_string(i));
  return s;
}

}  // namespace

TEST_CASE("HttpExchange: an answer from another thread, the HTTP thread serving others meanwhile", "[http]") {
  network::HttpServer server;
  Threads threads;
  std::promise<void> release;
  auto released = release.get_future().share();
  std::atomic<bool> answered{false};
  server.route("GET", "/sync", [](const network::HttpRequest&) {
    return network::HttpResponse{200, "text/plain", "s", {}};
  });
  server.route_async("GET", "/later",
                     [&](const network::HttpRequest& r, const std::shared_ptr<network::HttpExchange>& e) {
                       threads.spawn([e, released, path = r.path, &answered] {
                         released.wait();
                         answered = e->respond({200, "text/plain", "later " + path, {}});
                       });
                     });
  server.bind("127.0.0.1", 0);
  server.start();
  const auto port = server.endpoints().at(0).port();
  HttpClient waiting(port);
  REQUIRE(waiting.send("GET /later HTTP/1.1\r\nHost: t\r\n\r\n"));
  HttpClient other(port);
  auto s = other.get("/sync");  // answered while /later waits
  REQUIRE(s);
  CHECK(s->body == "s");
  release.set_value();
  auto r = waiting.read();
  REQUIRE(r);
  CHECK(r->status == 200);
  CHECK(r->body == "later /later");
  auto again = waiting.get("/sync");  // keep-alive after an asynchronous answer
  REQUIRE(again);
  CHECK(again->body == "s");
  threads.join();
  CHECK(answered);
}

TEST_CASE("HttpExchange: a streamed answer arrives whole and in order through a small queue", "[http]") {
  network::HttpServerConfig config;
  config.exchange_queue_bytes = 4096;  // far less than the answer: the writer waits for the client
  network::HttpServer server(config);
  Threads threads;
  constexpr int kPieces = 300;
  std::atomic<int> failed_calls{0};
  server.route_async("GET", "/stream",
                     [&](const network::HttpRequest&, const std::shared_ptr<network::HttpExchange>& e) {
                       threads.spawn([e, &failed_calls] {
                         failed_calls += !e->begin(200, "application/json", {{"X-Stream", "1"}});
                         for (int i = 0; i < kPieces; ++i) failed_calls += !e->write(piece(i, 1000));
                         failed_calls += !e->end();
                       });
                     });
  server.route("GET", "/sync", [](const network::HttpRequest&) {
    return network::HttpResponse{200, "text/plain", "s", {}};
  });
  server.bind("127.0.0.1", 0);
  server.start();
  HttpClient c(server.endpoints().at(0).port());
  REQUIRE(c.send("GET /stream HTTP/1.1\r\nHost: t\r\n\r\n"));
  std::string pending;
  auto r = read_chunked(c, pending);
  CHECK(r.complete);
  CHECK(r.status == 200);
  CHECK(test::lower(r.head).find("transfer-encoding: chunked") != std::string::npos);
  CHECK(test::lower(r.head).find("x-stream: 1") != std::string::npos);
  std::string expected;
  for (int i = 0; i < kPieces; ++i) expected += piece(i, 1000);
  CHECK(r.body == expected);
  REQUIRE(pending.empty());
  auto next = c.get("/sync");  // the connection goes on after the last chunk
  REQUIRE(next);
  CHECK(next->body == "s");
  threads.join();
  CHECK(failed_calls == 0);
}

TEST_CASE("HttpExchange: a streamed request body reaches the route piece by piece, chunked or not", "[http]") {
  network::HttpServerConfig config;
  config.exchange_queue_bytes = 8192;   // the session pauses reading while the route lags
  config.limits.max_body_bytes = 1024;  // a streamed body is not bound by it
  network::HttpServer server(config);
  Threads threads;
  std::atomic<int> ended{0};
  server.route_async(
      "POST", "/sum",
      [&](const network::HttpRequest&, const std::shared_ptr<network::HttpExchange>& e) {
        threads.spawn([e, &ended] {
          std::string all, p;
          network::HttpExchangeChannel::Read got;
          while ((got = e->read(p)) == network::HttpExchangeChannel::Read::kData) all += p;
          ended += got == network::HttpExchangeChannel::Read::kEnd;
          size_t digits = 0;
          for (char ch : all) digits += ch >= '0' && ch <= '9';
          e->respond({200, "text/plain", std::to_string(all.size()) + " " + std::to_string(digits), {}});
        });
      },
      network::HttpBodyMode::kStreamed);
  server.bind("127.0.0.1", 0);
  server.start();
  HttpClient c(server.endpoints().at(0).port());
  std::string chunked = "POST /sum HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 200; ++i) chunked += "3e8\r\n" + std::string(999, 'x') + "7\r\n";  // 1000 bytes each
  chunked += "0\r\n\r\n";
  REQUIRE(c.send(chunked));
  auto r = c.read();
  REQUIRE(r);
  CHECK(r->body == "200000 200");
  const std::string body(300000, '5');
  REQUIRE(c.send("POST /sum HTTP/1.1\r\nHost: t\r\nContent-Length: 300000\r\n\r\n" + body));
  r = c.read();
  REQUIRE(r);
  CHECK(r->body == "300000 300000");
  threads.join();
  CHECK(ended == 2);
}

TEST_CASE("HttpExchange: an exchange dropped unanswered is 500, Expect 100-continue gets its interim answer",
          "[http]") {
  network::HttpServer server;
  server.route_async("GET", "/drop", [](const network::HttpRequest&, const std::shared_ptr<network::HttpExchange>&) {});
  server.route_async("POST", "/echo",
                     [](const network::HttpRequest& r, const std::shared_ptr<network::HttpExchange>& e) {
                       e->respond({200, "text/plain", r.body, {}});
                     });
  server.bind("127.0.0.1", 0);
  server.start();
  HttpClient c(server.endpoints().at(0).port());
  auto r = c.get("/drop");
  REQUIRE(r);
  CHECK(r->status == 500);
  REQUIRE(c.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n"));
  auto interim = c.read(true);
  REQUIRE(interim);
  CHECK(interim->status == 100);
  REQUIRE(c.send("hello"));
  r = c.read();
  REQUIRE(r);
  CHECK(r->body == "hello");
}

TEST_CASE("HttpExchange: the client closing while the route streams makes its writes return false", "[http]") {
  network::HttpServerConfig config;
  config.exchange_queue_bytes = 4096;
  network::HttpServer server(config);
  Threads threads;
  std::promise<int> writes;
  std::atomic<bool> saw_closed{false};
  server.route_async("GET", "/forever",
                     [&](const network::HttpRequest&, const std::shared_ptr<network::HttpExchange>& e) {
                       threads.spawn([e, &writes, &saw_closed] {
                         e->begin(200, "text/plain");
                         int n = 0;
                         while (e->write(std::string(1000, 'z'))) ++n;
                         saw_closed = e->closed();
                         writes.set_value(n);
                       });
                     });
  server.route("GET", "/sync", [](const network::HttpRequest&) {
    return network::HttpResponse{200, "text/plain", "s", {}};
  });
  server.bind("127.0.0.1", 0);
  server.start();
  {
    HttpClient c(server.endpoints().at(0).port());
    REQUIRE(c.send("GET /forever HTTP/1.1\r\nHost: t\r\n\r\n"));
    CHECK(!c.raw().read_some().empty());  // the stream started
  }                                       // closed without reading on: the server's writes fail, the session ends
  auto n = writes.get_future().get();
  CHECK(n > 0);
  CHECK(saw_closed);
  HttpClient other(server.endpoints().at(0).port());
  auto s = other.get("/sync");
  REQUIRE(s);
  CHECK(s->body == "s");
  threads.join();
}

TEST_CASE("HttpExchange: stopping the server while routes wait, stream or read ends them all", "[http]") {
  network::HttpServerConfig config;
  config.exchange_queue_bytes = 4096;
  network::HttpServer server(config);
  Threads threads;
  std::promise<void> waiting_started, streaming_started, reading_started;
  std::promise<bool> late_answer;
  std::promise<network::HttpExchangeChannel::Read> read_result;
  std::promise<void> stopped;
  auto stopped_f = stopped.get_future().share();
  server.route_async("GET", "/wait", [&](const network::HttpRequest&, const std::shared_ptr<network::HttpExchange>& e) {
    threads.spawn([e, &waiting_started, &late_answer, stopped_f] {
      waiting_started.set_value();
      stopped_f.wait();
      late_answer.set_value(e->respond({200, "text/plain", "late", {}}));
    });
  });
  server.route_async("GET", "/stream",
                     [&](const network::HttpRequest&, const std::shared_ptr<network::HttpExchange>& e) {
                       threads.spawn([e, &streaming_started] {
                         e->begin(200, "text/plain");
                         bool first = true;
                         while (e->write(std::string(1000, 'y')))
                           if (std::exchange(first, false)) streaming_started.set_value();
                       });
                     });
  server.route_async(
      "POST", "/read",
      [&](const network::HttpRequest&, const std::shared_ptr<network::HttpExchange>& e) {
        threads.spawn([e, &reading_started, &read_result] {
          std::string p;
          auto got = e->read(p);  // the first piece
          reading_started.set_value();
          while (got == network::HttpExchangeChannel::Read::kData) got = e->read(p);
          read_result.set_value(got);
        });
      },
      network::HttpBodyMode::kStreamed);
  server.bind("127.0.0.1", 0);
  server.start();
  const auto port = server.endpoints().at(0).port();
  HttpClient a(port), b(port), c(port);
  REQUIRE(a.send("GET /wait HTTP/1.1\r\nHost: t\r\n\r\n"));
  REQUIRE(b.send("GET /stream HTTP/1.1\r\nHost: t\r\n\r\n"));
  REQUIRE(c.send("POST /read HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n"));
  waiting_started.get_future().wait();
  streaming_started.get_future().wait();
  reading_started.get_future().wait();
  server.stop();
  stopped.set_value();
  CHECK_FALSE(late_answer.get_future().get());
  CHECK(read_result.get_future().get() == network::HttpExchangeChannel::Read::kClosed);
  threads.join();  // the streaming writer returned too
}
