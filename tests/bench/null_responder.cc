// skiff_null_responder: the ceiling of a saturation run on this machine. It
// answers every Produce v9 request with an empty, error-free Produce
// response as soon as it reads it, from one epoll thread, and does nothing
// else: no log, no hand-off, no second thread. What `skiff_produce_load`
// reaches against it is what the client, loopback TCP and the machine allow
// a server that costs nothing but one wake-up per read: the bound a broker's
// saturation is read against (bench/request_cost.py --brokers
// ceiling). Not a broker and not a test.
//
//   skiff_null_responder --port P [--seconds S]
//
// Listens on 127.0.0.1:P, exits after S seconds (default 600) so that a
// benchmark that dies never leaves it behind. Only for skiff_produce_load
// with one partition: it answers every frame as a Produce v9 (it reads no
// API key), so a client that asks anything else gets nonsense.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "protocol/frame.h"
#include "protocol/generated/produce_response.h"
#include "tests/bench/load_driver.h"
#include "tests/bench/produce_frames.h"

using namespace skiff;

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "skiff_null_responder: %s: %s\n", what.c_str(), std::strerror(errno));
  std::exit(1);
}

// One answer frame; its correlation id is patched per request.
std::vector<uint8_t> answer_template() {
  protocol::ProduceResponse empty;
  std::vector<uint8_t> out;
  for (const auto& c : protocol::encode_response_frame(0, bench::kProduceVersion, empty)) {
    const auto& bytes = std::get<std::vector<uint8_t>>(c);  // no file regions in an empty answer
    out.insert(out.end(), bytes.begin(), bytes.end());
  }
  return out;
}

class Responder {
 public:
  Responder(int port, const std::vector<uint8_t>& answer) : answer_(answer), ep_(epoll_create1(EPOLL_CLOEXEC)) {
    listener_ = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    const int one = 1;
    setsockopt(listener_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(uint16_t(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(listener_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || listen(listener_, 64) != 0) fail("listen");
    epoll_event ev{EPOLLIN, {.fd = listener_}};
    epoll_ctl(ep_, EPOLL_CTL_ADD, listener_, &ev);
  }

  void run(int64_t until_ns) {
    epoll_event evs[64];
    while (bench::mono_ns() < until_ns) {
      const int n = epoll_wait(ep_, evs, 64, 1000);
      for (int k = 0; k < n; ++k) evs[k].data.fd == listener_ ? accept_all() : serve(evs[k].data.fd);
    }
  }

 private:
  void accept_all() {
    int fd;
    while ((fd = accept4(listener_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
      const int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      epoll_event ev{EPOLLIN, {.fd = fd}};
      epoll_ctl(ep_, EPOLL_CTL_ADD, fd, &ev);
      unparsed_[fd];
    }
  }

  // Reads what arrived, answers every whole frame in it with one send.
  void serve(int fd) {
    std::vector<uint8_t>& in = unparsed_[fd];
    uint8_t buf[65536];
    ssize_t n;
    while ((n = ::recv(fd, buf, sizeof buf, 0)) > 0) in.insert(in.end(), buf, buf + n);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
      close(fd);
      unparsed_.erase(fd);
      return;
    }
    out_.clear();
    size_t at = 0;
    for (size_t size; (size = bench::whole_frame_at(in, at)) != 0; at += size) {
      const size_t o = out_.size();
      out_.insert(out_.end(), answer_.begin(), answer_.end());
      std::memcpy(out_.data() + o + bench::kResponseCorrelationAt, in.data() + at + bench::kRequestCorrelationAt, 4);
    }
    in.erase(in.begin(), in.begin() + long(at));
    // Answers are a few dozen bytes each: the socket takes them whole.
    if (!out_.empty() && ::send(fd, out_.data(), out_.size(), MSG_NOSIGNAL) != ssize_t(out_.size())) fail("send");
  }

  std::vector<uint8_t> answer_;
  int ep_;
  int listener_ = -1;
  std::unordered_map<int, std::vector<uint8_t>> unparsed_;  // per connection: bytes of a frame not yet whole
  std::vector<uint8_t> out_;                                // one serve()'s answers
};

}  // namespace

int main(int argc, char** argv) {
  int port = 0;
  double seconds = 600;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    if (k == "--port")
      port = std::stoi(argv[i + 1]);
    else if (k == "--seconds")
      seconds = std::stod(argv[i + 1]);
  }
  if (port <= 0) {
    std::fprintf(stderr, "usage: skiff_null_responder --port P [--seconds S]\n");
    return 2;
  }
  Responder r(port, answer_template());
  r.run(bench::mono_ns() + int64_t(seconds * 1e9));
  return 0;
}
