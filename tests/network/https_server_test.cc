// HttpServer on an https:// address (bind with a TlsListenerContext) over a
// real loopback socket, with certificates the openssl command line makes at
// test time: an HTTPS GET, plaintext and garbage on the TLS port closing
// only their connection, a silent client timed out, ssl.client.auth=required,
// certificate rotation, and stop() with TLS connections open.
#include <openssl/x509.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "network/http_server.h"
#include "network/tls_context.h"
#include "tests/support/http_client.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_certs.h"

using namespace skiff;
using skiff::test::HttpClient;
using skiff::test::RawClient;
using skiff::test::TempDir;
using skiff::test::TestCert;
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

namespace {

struct HttpsReply {
  int status = 0;
  std::string body;
  std::string server_subject;  // the certificate the server presented
};

// What an HTTPS client brings: the certificate it trusts (empty: trusts
// anything), and its own certificate, if any.
struct ClientTls {
  std::filesystem::path trust;
  const TestCert* cert = nullptr;
};

// One TLS connection of a test client; every step within 5 s.
class HttpsConnection {
 public:
  HttpsConnection(uint16_t port, const ClientTls& tls) {
    if (!tls.trust.empty()) {
      ctx_.load_verify_file(tls.trust.string());
      ctx_.set_verify_mode(asio::ssl::verify_peer);
    }
    if (tls.cert) {
      ctx_.use_certificate_chain_file(tls.cert->crt.string());
      ctx_.use_private_key_file(tls.cert->key.string(), asio::ssl::context::pem);
    }
    stream_ =
        std::make_unique<beast::ssl_stream<beast::tcp_stream>>(io_, ctx_);  // after the settings: SSL_new copies them
    beast::get_lowest_layer(*stream_).expires_after(std::chrono::seconds(5));
    beast::get_lowest_layer(*stream_).async_connect(
        {asio::ip::make_address("127.0.0.1"), port}, [this](const beast::error_code& ec) {
          if (!ec)
            stream_->async_handshake(asio::ssl::stream_base::client,
                                     [this](const beast::error_code& e) { handshaken_ = !e; });
        });
    io_.run();
  }
  bool handshaken() const { return handshaken_; }

  // A GET on this connection; nullopt when the exchange failed.
  std::optional<HttpsReply> get(const std::string& target) {
    if (!handshaken_) return std::nullopt;
    request_ = {http::verb::get, target, 11};
    request_.set(http::field::host, "localhost");
    response_ = {};
    std::optional<HttpsReply> out;
    beast::get_lowest_layer(*stream_).expires_after(std::chrono::seconds(5));
    http::async_write(*stream_, request_, [&](const beast::error_code& ec, size_t) {
      if (ec) return;
      http::async_read(*stream_, buffer_, response_, [&](const beast::error_code& e, size_t) {
        if (e) return;
        X509* cert = SSL_get0_peer_certificate(stream_->native_handle());
        out = HttpsReply{static_cast<int>(response_.result_int()), response_.body(),
                         cert ? network::subject_rfc2253(cert) : ""};
      });
    });
    io_.restart();
    io_.run();
    return out;
  }

 private:
  asio::io_context io_;
  asio::ssl::context ctx_{asio::ssl::context::tls_client};
  std::unique_ptr<beast::ssl_stream<beast::tcp_stream>> stream_;
  bool handshaken_ = false;
  http::request<http::empty_body> request_;
  beast::flat_buffer buffer_;
  http::response<http::string_body> response_;
};

// One GET over a new TLS connection; nullopt when it failed.
std::optional<HttpsReply> https_get(uint16_t port, const ClientTls& tls, const std::string& target = "/hello") {
  return HttpsConnection(port, tls).get(target);
}

network::TlsSettings server_settings(const TestCert& cert) {
  network::TlsSettings t;
  t.keystore_location = cert.pem.string();
  return t;
}

struct HttpsFixture {
  explicit HttpsFixture(const std::function<void(network::TlsSettings&)>& adjust = {},
                        network::HttpServerConfig config = {})
      : server(config) {
    auto settings = server_settings(cert);
    if (adjust) adjust(settings);
    tls = std::make_shared<network::TlsListenerContext>("http", settings);
    server.route("GET", "/hello", [](const network::HttpRequest& r) {
      return network::HttpResponse{200, "text/plain", "hi " + r.peer_address, {}};
    });
    server.bind("127.0.0.1", 0, tls);
    server.bind("127.0.0.1", 0);  // a plain address beside it
    server.start();
    port = server.endpoints().at(0).port();
    plain_port = server.endpoints().at(1).port();
  }
  TempDir dir{"skiff-https"};
  TestCert cert = test::make_self_signed_cert(dir.path(), "server");
  std::shared_ptr<network::TlsListenerContext> tls;
  network::HttpServer server;
  uint16_t port = 0;
  uint16_t plain_port = 0;
};

}  // namespace

TEST_CASE("HttpServer over TLS: an HTTPS GET is answered, plain addresses stay plain", "[http][https]") {
  HttpsFixture f;
  auto r = https_get(f.port, {f.cert.crt});
  REQUIRE(r);
  CHECK(r->status == 200);
  CHECK(r->body == "hi 127.0.0.1");
  CHECK(r->server_subject == "CN=localhost");
  CHECK(https_get(f.port, {f.cert.crt}, "/nowhere")->status == 404);
  auto plain = HttpClient(f.plain_port).get("/hello");
  REQUIRE(plain);
  CHECK(plain->status == 200);
  CHECK_FALSE(https_get(f.plain_port, {f.cert.crt}));  // no TLS there
  const auto texts = f.server.endpoint_texts();
  CHECK(texts.at(0) == "https://127.0.0.1:" + std::to_string(f.port));
  CHECK(texts.at(1) == "127.0.0.1:" + std::to_string(f.plain_port));
}

TEST_CASE("HttpServer over TLS: plaintext and bad handshakes close only their own connection", "[http][https]") {
  HttpsFixture f;
  HttpClient plaintext(f.port);
  CHECK_FALSE(plaintext.get("/hello"));  // an HTTP request on the TLS port: closed, no answer
  CHECK(plaintext.closed());
  RawClient garbage("127.0.0.1", f.port, 5000);  // a TLS record header, then nonsense
  const std::string hello("\x16\x03\x01\x00\x08nonsense", 13);
  REQUIRE(garbage.send_raw(hello.data(), hello.size()));
  CHECK(garbage.wait_closed());
  TempDir other("skiff-https-other");
  auto stranger = test::make_self_signed_cert(other.path(), "stranger");
  CHECK_FALSE(https_get(f.port, {stranger.crt}));  // the client refuses the server's certificate
  auto r = https_get(f.port, {f.cert.crt});        // the server goes on
  REQUIRE(r);
  CHECK(r->status == 200);
}

TEST_CASE("HttpServer over TLS: a client silent in the handshake is closed after the idle timeout", "[http][https]") {
  network::HttpServerConfig config;
  config.limits.idle_timeout = std::chrono::milliseconds(1000);
  HttpsFixture f({}, config);
  RawClient silent("127.0.0.1", f.port, 5000);
  const auto t0 = std::chrono::steady_clock::now();
  CHECK(silent.wait_closed());
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(4));
  CHECK(https_get(f.port, {f.cert.crt}));
}

TEST_CASE("HttpServer over TLS: ssl.client.auth=required demands a trusted client certificate", "[http][https]") {
  TempDir certs("skiff-https-client");
  auto client = test::make_self_signed_cert(certs.path(), "client", "/CN=client");
  auto stranger = test::make_self_signed_cert(certs.path(), "stranger", "/CN=stranger");
  HttpsFixture f([&](network::TlsSettings& t) {
    t.client_auth = network::TlsSettings::ClientAuth::kRequired;
    t.truststore_location = client.crt.string();
  });
  CHECK_FALSE(https_get(f.port, {f.cert.crt}));             // no certificate
  CHECK_FALSE(https_get(f.port, {f.cert.crt, &stranger}));  // one the server does not trust
  auto r = https_get(f.port, {f.cert.crt, &client});
  REQUIRE(r);
  CHECK(r->status == 200);
}

TEST_CASE("HttpServer over TLS: a rotated certificate serves new connections without a restart", "[http][https]") {
  TempDir dir("skiff-https-rotate");
  auto first = test::make_self_signed_cert(dir.path(), "first", "/CN=first");
  auto next = test::make_self_signed_cert(dir.path(), "next", "/CN=rotated");
  auto keystore = dir / "keystore.pem";
  std::filesystem::copy_file(first.pem, keystore);
  auto tls = std::make_shared<network::TlsListenerContext>("http", server_settings({{}, {}, keystore}));
  network::HttpServer server;
  server.route("GET", "/hello", [](const network::HttpRequest&) { return network::HttpResponse{200, "", "hi", {}}; });
  server.bind("127.0.0.1", 0, tls);
  server.start();
  const auto port = server.endpoints().at(0).port();
  HttpsConnection before(port, {});  // open across the rotation: keeps the first certificate
  CHECK(before.get("/hello")->server_subject == "CN=first");
  std::filesystem::copy_file(next.pem, keystore, std::filesystem::copy_options::overwrite_existing);
  std::string subject;
  for (int i = 0; i < 100 && subject != "CN=rotated"; ++i) {  // the timer looks every 3 s
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    auto r = https_get(port, {});
    subject = r ? r->server_subject : "";
  }
  CHECK(subject == "CN=rotated");
  CHECK(before.get("/hello")->server_subject == "CN=first");
}

TEST_CASE("HttpServer over TLS: stop() with TLS connections open, mid-handshake and idle", "[http][https]") {
  auto f = std::make_unique<HttpsFixture>();
  RawClient mid_handshake("127.0.0.1", f->port, 5000);  // connected, never says hello
  RawClient partial("127.0.0.1", f->port, 5000);        // half a ClientHello
  const std::string half("\x16\x03\x01\x02\x00\x01", 6);
  REQUIRE(partial.send_raw(half.data(), half.size()));
  HttpsConnection idle(f->port, {f->cert.crt});  // handshake done, a request answered, kept alive
  REQUIRE(idle.get("/hello"));
  HttpsConnection second(f->port, {f->cert.crt});  // handshake done, nothing asked yet
  REQUIRE(second.handshaken());
  const auto t0 = std::chrono::steady_clock::now();
  f->server.stop();
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(2));
  CHECK(mid_handshake.wait_closed());
  CHECK(partial.wait_closed());
  CHECK_FALSE(idle.get("/hello"));
  CHECK_FALSE(second.get("/hello"));
  f.reset();
}
