// A scripted HTTP/1.1 server on 127.0.0.1 for the S3 client's tests: one
// thread, one connection at a time, each request answered by the test's
// handler. Records what it was sent. The handler runs on the server thread.
#pragma once

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/http.hpp>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace skiff::remote::s3::testing {

namespace http = boost::beast::http;
using Request = http::request<http::string_body>;

struct Answer {
  int status = 200;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  bool close_after = false;  // close the socket after answering, without saying so
  int delay_ms = 0;          // wait before answering
};

class FakeS3 {
 public:
  explicit FakeS3(std::function<Answer(const Request&)> handler);
  ~FakeS3();
  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::vector<Request> seen();
  int connections() const { return connections_; }

 private:
  void run();
  void serve(boost::asio::ip::tcp::socket& s);

  std::function<Answer(const Request&)> handler_;
  boost::asio::io_context io_;
  boost::asio::ip::tcp::acceptor acceptor_;
  unsigned short port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> connections_{0};
  std::mutex mu_;
  std::vector<Request> seen_;
  std::thread thread_;
};

}  // namespace skiff::remote::s3::testing
