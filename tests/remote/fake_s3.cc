#include "tests/remote/fake_s3.h"

#include <boost/asio/connect.hpp>
#include <boost/beast/core.hpp>
#include <chrono>
#include <cstdint>
#include <limits>

namespace skiff::remote::s3::testing {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;

FakeS3::FakeS3(std::function<Answer(const Request&)> handler)
    : handler_(std::move(handler)), acceptor_(io_, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)) {
  port_ = acceptor_.local_endpoint().port();
  thread_ = std::thread([this] { run(); });
}

FakeS3::~FakeS3() {
  stop_ = true;
  try {  // wake the accept
    asio::io_context io;
    tcp::socket s(io);
    s.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port_));
  } catch (const std::exception&) {
  }
  thread_.join();
}

std::vector<Request> FakeS3::seen() {
  std::lock_guard lock(mu_);
  return seen_;
}

void FakeS3::run() {
  while (!stop_) {
    tcp::socket s(io_);
    beast::error_code ec;
    acceptor_.accept(s, ec);
    if (ec || stop_) return;
    ++connections_;
    serve(s);
  }
}

void FakeS3::serve(tcp::socket& s) {
  beast::flat_buffer buf;
  for (;;) {
    // No body limit (beast's default is 1 MiB): storage tests send 5 MiB parts.
    http::request_parser<http::string_body> parser;
    parser.body_limit(std::numeric_limits<std::uint64_t>::max());
    beast::error_code ec;
    http::read(s, buf, parser, ec);
    if (ec) return;
    Request req = parser.release();
    {
      std::lock_guard lock(mu_);
      seen_.push_back(req);
    }
    Answer a = handler_(req);
    if (a.delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(a.delay_ms));
    http::response<http::string_body> res{static_cast<http::status>(a.status), 11};
    for (const auto& [n, v] : a.headers) res.set(n, v);
    res.body() = a.body;
    res.prepare_payload();
    if (req.method() == http::verb::head) res.content_length(a.body.size());
    http::serializer<false, http::string_body> sr{res};
    if (req.method() == http::verb::head) {
      http::write_header(s, sr, ec);
    } else {
      http::write(s, res, ec);
    }
    if (ec || a.close_after) return;
  }
}

}  // namespace skiff::remote::s3::testing
