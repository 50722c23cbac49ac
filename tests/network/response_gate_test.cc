// ResponseGate and the direct write: a response made on another thread is
// written straight to the socket while one is owed; what the socket cannot
// take, a close, or a response nobody owes goes to the Processor; a closed
// gate drops. Then, end to end through a SocketServer, the paths that hand a
// response over mid-write and a client that shuts its side after asking.
#include "network/response_gate.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <thread>

#include "network/request_channel.h"
#include "tests/network/test_broker.h"
#include "tests/support/raw_client.h"
#include "tests/support/temp_dir.h"

using namespace skiff;
using network::Response;
using network::ResponseGate;
using Outcome = network::ResponseGate::Outcome;

namespace {

struct SocketPair {
  int broker = -1, client = -1;
  SocketPair() {
    int fds[2];
    REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0);
    broker = fds[0], client = fds[1];
    ::fcntl(broker, F_SETFL, ::fcntl(broker, F_GETFL) | O_NONBLOCK);
  }
  ~SocketPair() {
    ::close(broker);
    ::close(client);
  }
  std::vector<uint8_t> read_all_available() {
    std::vector<uint8_t> out(1 << 20);
    ssize_t n = ::recv(client, out.data(), out.size(), MSG_DONTWAIT);
    out.resize(n > 0 ? size_t(n) : 0);
    return out;
  }
};

// A loopback TCP connection (MSG_MORE means nothing on a Unix socket), the
// broker's side non-blocking with TCP_NODELAY, as a Processor sets it.
struct TcpPair {
  int broker = -1, client = -1;
  TcpPair() {
    const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    REQUIRE(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    REQUIRE(::listen(listener, 1) == 0);
    REQUIRE(::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
    client = ::socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(::connect(client, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    broker = ::accept(listener, nullptr, nullptr);
    ::close(listener);
    REQUIRE(broker >= 0);
    const int on = 1;
    ::setsockopt(broker, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    ::fcntl(broker, F_SETFL, ::fcntl(broker, F_GETFL) | O_NONBLOCK);
  }
  ~TcpPair() {
    ::close(broker);
    ::close(client);
  }
  // What arrives within `ms` (nothing: empty). The kernel sends corked bytes
  // after 200 ms at the latest: "held" is checked for 50 ms, "pushed" as
  // within 100 ms of that.
  std::vector<uint8_t> read_within(int ms) {
    pollfd p{client, POLLIN, 0};
    if (::poll(&p, 1, ms) != 1) return {};
    std::vector<uint8_t> out(1 << 16);
    ssize_t n = ::recv(client, out.data(), out.size(), MSG_DONTWAIT);
    out.resize(n > 0 ? size_t(n) : 0);
    return out;
  }
};

Response bytes_response(std::vector<uint8_t> bytes) { return Response::send({}, std::move(bytes)); }

// try_answer where nothing is staged: no next request comes out.
Outcome answer(ResponseGate& gate, Response& r) {
  std::optional<network::Request> next;
  Outcome o = gate.try_answer(r, next);
  CHECK_FALSE(next.has_value());
  return o;
}

network::Request request_numbered(uint8_t n) {
  network::Request r;
  r.frame = network::Frame(1);
  r.frame.data()[0] = n;
  return r;
}

}  // namespace

TEST_CASE("a response owed is written by the thread that made it", "[network][gate]") {
  SocketPair sp;
  ResponseGate gate(sp.broker);
  gate.open(std::nullopt);
  CHECK(gate.owed());
  auto r = bytes_response({1, 2, 3, 4, 5});
  CHECK(answer(gate, r) == Outcome::kAnswered);
  CHECK_FALSE(gate.owed());
  CHECK(sp.read_all_available() == std::vector<uint8_t>{1, 2, 3, 4, 5});
}

TEST_CASE("the Processor is woken only when it asked to be", "[network][gate]") {
  SocketPair sp;
  ResponseGate gate(sp.broker);
  CHECK_FALSE(gate.request_wake());  // nothing owed: the Processor goes on itself
  gate.open(std::nullopt);
  CHECK(gate.request_wake());
  auto r = bytes_response({9});
  CHECK(answer(gate, r) == Outcome::kAnsweredWake);
  gate.open(std::nullopt);  // the next request: no wake asked
  auto noop = Response::noop({});
  CHECK(answer(gate, noop) == Outcome::kAnswered);
}

TEST_CASE("what the gate cannot write goes to the Processor, and a closed gate drops", "[network][gate]") {
  SocketPair sp;
  ResponseGate gate(sp.broker);
  auto unowed = bytes_response({1});
  CHECK(answer(gate, unowed) == Outcome::kToProcessor);  // nobody owes it: not ours to write
  gate.open(std::nullopt);
  auto close = Response::close({}, "bye");
  CHECK(answer(gate, close) == Outcome::kToProcessor);
  CHECK(gate.owed());
  gate.close();
  auto late = bytes_response({2});
  CHECK(answer(gate, late) == Outcome::kClosed);
}

TEST_CASE("a response the socket cannot take whole keeps exactly its unwritten rest", "[network][gate]") {
  SocketPair sp;
  ResponseGate gate(sp.broker);
  gate.open(std::nullopt);
  std::vector<uint8_t> big(8 << 20);
  for (size_t i = 0; i < big.size(); ++i) big[i] = uint8_t(i * 7 + 3);
  Response r = bytes_response(big);
  r.chunks.emplace_back(std::vector<uint8_t>{0xAB, 0xCD});
  REQUIRE(answer(gate, r) == Outcome::kToProcessor);
  CHECK(gate.owed());  // still owed: the Processor finishes it
  std::vector<uint8_t> got;
  for (auto chunk = sp.read_all_available(); !chunk.empty(); chunk = sp.read_all_available())
    got.insert(got.end(), chunk.begin(), chunk.end());
  REQUIRE(got.size() < big.size());
  for (auto& c : r.chunks) {
    auto& b = std::get<std::vector<uint8_t>>(c);
    got.insert(got.end(), b.begin(), b.end());
  }
  big.insert(big.end(), {0xAB, 0xCD});
  CHECK(got == big);
}

TEST_CASE("a file region is written with sendfile from the thread that made it", "[network][gate]") {
  SocketPair sp;
  test::TempDir dir("skiff-gate");
  int fd = ::open((dir.path() / "segment").c_str(), O_RDWR | O_CREAT, 0600);
  REQUIRE(fd >= 0);
  const char text[] = "0123456789abcdef";
  REQUIRE(::write(fd, text, 16) == 16);
  ResponseGate gate(sp.broker);
  gate.open(std::nullopt);
  Response r = bytes_response({'<'});
  r.chunks.emplace_back(FileRegion{fd, 4, 8, nullptr});
  r.chunks.emplace_back(std::vector<uint8_t>{'>'});
  CHECK(answer(gate, r) == Outcome::kAnswered);
  auto got = sp.read_all_available();
  CHECK(std::string(got.begin(), got.end()) == "<456789ab>");
  ::close(fd);
}

TEST_CASE("a response larger than the socket buffers, read late, arrives whole and in order", "[network]") {
  network::SocketServerConfig cfg;
  test::TestBroker broker(cfg);
  test::RawClient c("127.0.0.1", broker.port());
  std::vector<uint8_t> big(12 << 20);
  for (size_t i = 0; i < big.size(); ++i) big[i] = uint8_t(i * 13 + 1);
  REQUIRE(c.send_frame(big));
  REQUIRE(c.send_frame({'s', 'm', 'a', 'l', 'l'}));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the handler's write blocks part-way
  CHECK(c.read_frame() == big);
  CHECK(c.read_frame() == std::vector<uint8_t>{'s', 'm', 'a', 'l', 'l'});
}

TEST_CASE("a client that shuts its side after asking still gets every answer", "[network]") {
  network::SocketServerConfig cfg;
  test::TestBroker broker(cfg);
  broker.handler.delay_us = 50'000;
  test::RawClient c("127.0.0.1", broker.port());
  REQUIRE(c.send_frame({'a'}));
  REQUIRE(c.send_frame({'b'}));
  c.shutdown_write();
  CHECK(c.read_frame() == std::vector<uint8_t>{'a'});
  CHECK(c.read_frame() == std::vector<uint8_t>{'b'});
  CHECK(c.wait_closed());
}

TEST_CASE("requests staged behind an owed response are taken on, in order, by its writer", "[network][gate]") {
  SocketPair sp;
  ResponseGate gate(sp.broker);
  auto req = request_numbered(0);
  std::optional<network::MemoryPool::Lease> no_lease;
  CHECK_FALSE(gate.stage(req, no_lease));  // nothing owed: the Processor dispatches it itself
  gate.open(std::nullopt);
  for (uint8_t n = 1; n <= 3; ++n) {
    auto r = request_numbered(n);
    REQUIRE(gate.stage(r, no_lease));
  }
  CHECK(gate.staged() == 3);
  CHECK(gate.request_wake());  // the Processor stopped reading: woken once none is staged
  for (uint8_t n = 1; n <= 3; ++n) {
    auto resp = bytes_response({n});
    std::optional<network::Request> next;
    CHECK(gate.try_answer(resp, next) == (n == 3 ? Outcome::kAnsweredWake : Outcome::kAnswered));
    REQUIRE(next.has_value());
    CHECK(next->frame.bytes()[0] == n);
    CHECK(gate.owed());  // by the request just taken on
  }
  auto last = bytes_response({4});
  CHECK(answer(gate, last) == Outcome::kAnswered);
  CHECK_FALSE(gate.owed());
  CHECK(sp.read_all_available() == std::vector<uint8_t>{1, 2, 3, 4});
}

TEST_CASE("a muted connection's staged requests wait, a close drops them with their memory", "[network][gate]") {
  SocketPair sp;
  auto pool = network::MemoryPool::create(1000);
  ResponseGate gate(sp.broker);
  gate.open(pool->try_acquire(100));
  for (uint8_t n = 1; n <= 2; ++n) {
    auto r = request_numbered(n);
    auto lease = pool->try_acquire(100);
    REQUIRE(gate.stage(r, lease));
    CHECK_FALSE(lease.has_value());
  }
  CHECK(pool->in_flight() == 300);
  CHECK_FALSE(gate.answered(/*take_next=*/false).has_value());  // throttled: nothing taken
  CHECK_FALSE(gate.owed());
  CHECK(pool->in_flight() == 200);
  auto first = gate.take_staged();  // unmuted
  REQUIRE(first.has_value());
  CHECK(first->frame.bytes()[0] == 1);
  CHECK(gate.owed());
  CHECK_FALSE(gate.take_staged().has_value());  // one owed at a time
  gate.close();
  CHECK(gate.staged() == 0);
  CHECK(pool->in_flight() == 0);
  auto r = request_numbered(9);
  std::optional<network::MemoryPool::Lease> no_lease;
  CHECK_FALSE(gate.stage(r, no_lease));
}

TEST_CASE("a response with a request staged behind it leaves corked, with the next or on uncork", "[network][gate]") {
  TcpPair tp;
  ResponseGate gate(tp.broker);
  std::optional<network::MemoryPool::Lease> no_lease;
  gate.open(std::nullopt);
  auto staged = request_numbered(1);
  REQUIRE(gate.stage(staged, no_lease));
  auto first = bytes_response({1});
  std::optional<network::Request> next;
  bool corked = false;
  CHECK(gate.try_answer(first, next, &corked) == Outcome::kAnswered);
  REQUIRE(next.has_value());
  CHECK(corked);
  CHECK(tp.read_within(50).empty());  // held while the staged request is served
  auto second = bytes_response({2});
  std::optional<network::Request> none;
  CHECK(gate.try_answer(second, none, &corked) == Outcome::kAnswered);
  CHECK_FALSE(corked);  // nothing staged: written uncorked, which pushes both
  CHECK(tp.read_within(100) == std::vector<uint8_t>{1, 2});

  gate.open(std::nullopt);
  staged = request_numbered(2);
  REQUIRE(gate.stage(staged, no_lease));
  auto third = bytes_response({3});
  CHECK(gate.try_answer(third, next, &corked) == Outcome::kAnswered);
  CHECK(corked);
  CHECK(tp.read_within(50).empty());
  gate.uncork();  // the staged request was parked, say: pushed now
  CHECK(tp.read_within(100) == std::vector<uint8_t>{3});
  auto plain = bytes_response({4});
  CHECK(gate.try_answer(plain, none) == Outcome::kAnswered);  // without `corked`: never corked
  CHECK(tp.read_within(100) == std::vector<uint8_t>{4});
}

TEST_CASE("a handler thread's cork waits for its kept request, and no longer", "[network][gate]") {
  using namespace std::chrono_literals;
  TcpPair tp;
  auto gate = std::make_shared<ResponseGate>(tp.broker);
  network::RequestChannel channel(16);
  network::Request first = request_numbered(0);
  REQUIRE(channel.try_send_request(first));
  REQUIRE(channel.receive_request(0ms));  // this thread is a handler thread now
  REQUIRE(channel.handles_here());
  std::optional<network::MemoryPool::Lease> no_lease;
  const auto corked_write = [&](uint8_t byte) {
    gate->open(std::nullopt);
    auto staged = request_numbered(byte);
    REQUIRE(gate->stage(staged, no_lease));
    auto r = bytes_response({byte});
    std::optional<network::Request> next;
    bool corked = false;
    REQUIRE(gate->try_answer(r, next, &corked) == Outcome::kAnswered);
    REQUIRE(corked);
    channel.wrote(gate, true);
    return std::move(*next);
  };
  channel.hand_on(corked_write(1));       // kept: served next by this thread
  REQUIRE(channel.receive_request(0ms));  // the kept request; the cork still holds
  CHECK(tp.read_within(50).empty());
  CHECK_FALSE(channel.receive_request(0ms));  // served one: pushed before the next
  CHECK(tp.read_within(100) == std::vector<uint8_t>{1});
  // The request behind it went to another handler (nothing kept): pushed at once.
  auto elsewhere = corked_write(2);
  gate->answered(false);
  CHECK_FALSE(channel.receive_request(0ms));
  CHECK(tp.read_within(100) == std::vector<uint8_t>{2});
  channel.release_kept();
}
