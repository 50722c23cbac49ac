// RequestChannel's wake-ups: requests a Processor's turn queues with
// Wake::kLater wake no handler until wake_handlers(), which wakes one; a
// handler that takes a request with two or more behind it wakes one more;
// a handler thread that hands a request on wakes nobody unless two or more
// would wait behind its next; handlers wake each other only while fewer
// than the channel's awake target are awake. Every request is still handed
// out, in order.
#include "network/request_channel.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/eventually.h"

using namespace std::chrono_literals;
using skiff::network::Request;
using skiff::network::RequestChannel;
using Wake = RequestChannel::Wake;
using skiff::test::eventually;

namespace {

Request tagged(uint64_t tag) {
  Request r;
  r.context.connection_id = tag;
  return r;
}

// The state letter of thread `tid` of this process ('S': asleep).
char thread_state(pid_t tid) {
  std::ifstream in("/proc/self/task/" + std::to_string(tid) + "/stat");
  std::string line;
  std::getline(in, line);
  const auto close = line.rfind(')');
  return close == std::string::npos || close + 2 >= line.size() ? '?' : line[close + 2];
}

// A handler thread that takes one request and then holds it (so a second
// request is taken only by another handler that was woken for it).
class Handler {
 public:
  explicit Handler(RequestChannel& channel) : channel_(channel) {
    thread_ = std::thread([this] {
      tid_.store(static_cast<pid_t>(::syscall(SYS_gettid)));
      while (!stop_.load() && count_.load() == 0)
        if (channel_.receive_request(5000ms)) ++count_;
      while (!stop_.load()) std::this_thread::sleep_for(1ms);
    });
  }
  ~Handler() {
    stop_.store(true);
    channel_.close();
    thread_.join();
  }
  int count() const { return count_.load(); }
  // Waits until the thread sleeps in receive_request (or 5 s pass).
  void wait_asleep() const {
    if (!eventually([&] { return tid_.load() != 0 && count_.load() == 0 && thread_state(tid_.load()) == 'S'; }, 5000ms))
      FAIL("the handler thread never went to sleep");
  }
  bool took_within(std::chrono::milliseconds limit) const {
    return eventually([&] { return count_.load() > 0; }, limit);
  }

 private:
  RequestChannel& channel_;
  std::thread thread_;
  std::atomic<pid_t> tid_{0};
  std::atomic<bool> stop_{false};
  std::atomic<int> count_{0};
};

}  // namespace

TEST_CASE("requests queued with Wake::kLater wait for wake_handlers", "[request_channel]") {
  RequestChannel channel(16);
  Handler h(channel);
  h.wait_asleep();
  Request r = tagged(1);
  REQUIRE(channel.try_send_request(r, Wake::kLater));
  CHECK_FALSE(h.took_within(100ms));  // queued, nobody woken
  channel.wake_handlers();
  CHECK(h.took_within(5000ms));
}

TEST_CASE("Wake::kNow wakes a handler at once", "[request_channel]") {
  RequestChannel channel(16);
  Handler h(channel);
  h.wait_asleep();
  Request r = tagged(1);
  REQUIRE(channel.try_send_request(r));
  CHECK(h.took_within(5000ms));
}

TEST_CASE("a handler that leaves two or more behind wakes one more", "[request_channel]") {
  RequestChannel channel(16);
  Handler a(channel), b(channel);
  a.wait_asleep();
  b.wait_asleep();
  const int queued = GENERATE(2, 3);
  for (int i = 1; i <= queued; ++i) {
    Request r = tagged(uint64_t(i));
    REQUIRE(channel.try_send_request(r, Wake::kLater));
  }
  channel.wake_handlers();  // one of the two takes one, then holds it
  const auto taken = [&](int n) { return a.count() + b.count() >= n; };
  REQUIRE(eventually([&] { return taken(1); }, 5000ms));
  // One left behind waits for the first handler (cheaper than a wake-up);
  // two left: the second handler helps.
  CHECK(eventually([&] { return taken(2); }, 200ms) == (queued == 3));
}

TEST_CASE("handlers wake each other only up to the awake target", "[request_channel]") {
  const size_t target = GENERATE(1, 2);
  RequestChannel channel(16, target);
  Handler a(channel), b(channel), c(channel);
  a.wait_asleep();
  b.wait_asleep();
  c.wait_asleep();
  for (int i = 1; i <= 6; ++i) {
    Request r = tagged(uint64_t(i));
    REQUIRE(channel.try_send_request(r, Wake::kLater));
  }
  channel.wake_handlers();  // one takes one and holds it: it stays awake
  const auto taken = [&] { return a.count() + b.count() + c.count(); };
  REQUIRE(eventually([&] { return taken() >= int(target); }, 5000ms));
  // Four or more are still queued, yet no thread past the target is woken.
  CHECK_FALSE(eventually([&] { return taken() > int(target); }, 200ms));
  // The Processor's next wake is not held back: a sleeping handler takes one.
  channel.wake_handlers();
  CHECK(eventually([&] { return taken() == int(target) + 1; }, 5000ms));
}

TEST_CASE("a handler thread hands on without waking past the awake target", "[request_channel]") {
  RequestChannel channel(16, 1);
  Request first = tagged(1);
  REQUIRE(channel.try_send_request(first, Wake::kLater));
  REQUIRE(channel.receive_request(0ms));  // this thread is a handler thread now
  Handler other(channel);
  other.wait_asleep();
  for (uint64_t tag = 10; tag < 14; ++tag) channel.hand_on(tagged(tag));
  CHECK_FALSE(other.took_within(200ms));  // this thread is the one awake
  channel.release_kept();                 // ... until it stops: it wakes another for what it kept
  CHECK(other.took_within(5000ms));
}

TEST_CASE("a handler thread hands on, waking another only for two or more behind its next", "[request_channel]") {
  RequestChannel channel(16);
  Request first = tagged(1);
  REQUIRE(channel.try_send_request(first, Wake::kLater));
  REQUIRE(channel.receive_request(0ms));  // this thread is a handler thread now
  Handler other(channel);
  other.wait_asleep();
  channel.hand_on(tagged(10));  // nothing queued: this thread keeps it
  channel.hand_on(tagged(11));  // one behind the kept one: no wake-up
  CHECK_FALSE(other.took_within(100ms));
  channel.hand_on(tagged(12));  // two behind: another handler is woken
  CHECK(other.took_within(5000ms));
  auto next = channel.receive_request(0ms);
  REQUIRE(next);
  CHECK(next->context.connection_id == 10);  // the kept one comes first
  CHECK(channel.handed_on() == 3);
  channel.release_kept();  // this thread stops being a handler thread
}

TEST_CASE("a handed-on request goes ahead of requests read after it", "[request_channel]") {
  const auto t0 = std::chrono::steady_clock::now();
  const auto read_at = [&](uint64_t tag, int us) {
    Request r = tagged(tag);
    r.received_at = t0 + std::chrono::microseconds(us);
    return r;
  };
  RequestChannel channel(16);
  Request first = read_at(1, 0);
  REQUIRE(channel.try_send_request(first, Wake::kLater));
  REQUIRE(channel.receive_request(0ms));  // this thread is a handler thread now
  // The turn read a pipelined produce run (staged, read at 10 and 20) and
  // then a fetch (read at 30, queued).
  Request fetch = read_at(30, 30);
  REQUIRE(channel.try_send_request(fetch, Wake::kLater));
  channel.hand_on(read_at(10, 10));  // read before the fetch: kept, served next
  channel.hand_on(read_at(20, 20));  // read before the fetch too: queued ahead of it
  channel.hand_on(read_at(40, 40));  // read after it: behind it
  std::vector<uint64_t> order;
  while (auto r = channel.receive_request(0ms)) order.push_back(r->context.connection_id);
  CHECK(order == std::vector<uint64_t>{10, 20, 30, 40});
  channel.release_kept();
}
