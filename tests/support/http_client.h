// HttpClient: a blocking HTTP/1.1 client on RawClient for tests of the
// HTTP listener (network/http_server.h): one connection, requests written
// as given (malformed ones too), responses read in order with their
// Content-Length. Header-only.
#pragma once

#include <cctype>
#include <map>
#include <optional>
#include <string>

#include "tests/support/raw_client.h"

namespace skiff::test {

struct HttpReply {
  int status = 0;
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
};

inline std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// An HTTP/1.1 client on RawClient: one connection, responses read in order.
class HttpClient {
 public:
  explicit HttpClient(uint16_t port, int timeout_ms = 5000) : raw_("127.0.0.1", port, timeout_ms) {}
  bool send(const std::string& bytes) { return raw_.send_raw(bytes.data(), bytes.size()); }
  std::optional<HttpReply> get(const std::string& target, const std::string& method = "GET") {
    if (!send(method + " " + target + " HTTP/1.1\r\nHost: t\r\n\r\n")) return std::nullopt;
    return read(method == "HEAD");
  }
  // The next response; for a HEAD request its Content-Length has no body.
  std::optional<HttpReply> read(bool head = false) {
    size_t end;
    while ((end = pending_.find("\r\n\r\n")) == std::string::npos)
      if (!more()) return std::nullopt;
    HttpReply r;
    parse_head(pending_.substr(0, end), r);
    pending_.erase(0, end + 4);
    size_t length = head ? 0 : std::stoul(r.headers["content-length"]);
    while (pending_.size() < length)
      if (!more()) return std::nullopt;
    r.body = pending_.substr(0, length);
    pending_.erase(0, length);
    return r;
  }
  bool closed() { return pending_.empty() && raw_.wait_closed(); }
  RawClient& raw() { return raw_; }

 private:
  bool more() {
    auto got = raw_.read_some();
    pending_ += got;
    return !got.empty();
  }
  static void parse_head(const std::string& head, HttpReply& r) {
    r.status = std::stoi(head.substr(9, 3));
    size_t pos = head.find("\r\n");
    while (pos != std::string::npos) {
      size_t next = head.find("\r\n", pos + 2);
      auto line = head.substr(pos + 2, next == std::string::npos ? std::string::npos : next - pos - 2);
      auto colon = line.find(':');
      if (colon != std::string::npos) r.headers[lower(line.substr(0, colon))] = line.substr(colon + 2);
      pos = next;
    }
  }
  RawClient raw_;
  std::string pending_;
};

}  // namespace skiff::test
