// RegistryService across threads: registrations from several threads,
// acknowledged on the log's own thread, while readers read. Every
// registration gets its own id; readers see only durable state. (Catch2's
// assertions are not thread-safe: the threads count, the test checks.)
#include <atomic>
#include <catch2/catch.hpp>
#include <condition_variable>
#include <future>
#include <set>
#include <thread>

#include "fake_format.h"

using namespace skiff::schemareg;
using skiff::Expected;

namespace {

// Acknowledges appends on its own thread, in order.
class ThreadedLog : public RecordLog {
 public:
  ThreadedLog() : worker_([this] { run(); }) {}
  ~ThreadedLog() override {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    worker_.join();
  }
  void append(std::vector<Record>, std::function<void(std::optional<RegistryError>)> durable) override {
    {
      std::lock_guard lock(mu_);
      pending_.push_back(std::move(durable));
    }
    cv_.notify_all();
  }

 private:
  void run() {
    std::unique_lock lock(mu_);
    for (;;) {
      cv_.wait(lock, [this] { return stop_ || !pending_.empty(); });
      if (pending_.empty()) return;
      auto durable = std::move(pending_.front());
      pending_.pop_front();
      lock.unlock();
      durable(std::nullopt);
      lock.lock();
    }
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void(std::optional<RegistryError>)>> pending_;
  bool stop_ = false;
  std::thread worker_;
};

}  // namespace

TEST_CASE("concurrent registrations get distinct ids while readers read", "[schemareg][threads]") {
  constexpr size_t kWriters = 4;
  constexpr size_t kEach = 25;
  ThreadedLog log;
  RegistryService svc(log, testing::parse_fake);
  std::atomic<bool> done{false};
  std::atomic<int> reads{0};
  std::atomic<int> bad_reads{0};
  std::atomic<int> failed_writes{0};
  std::thread reader([&] {
    while (!done) {
      for (const auto& subject : svc.list_subjects("", false, false)) {
        const auto v = svc.get_version(subject, "latest", false);
        if (!v || !svc.schema_by_id(v->id, std::nullopt)) ++bad_reads;
      }
      ++reads;
    }
  });
  std::vector<std::future<std::vector<int32_t>>> writers;
  for (size_t w = 0; w < kWriters; ++w) {
    writers.push_back(std::async(std::launch::async, [&svc, &failed_writes, w] {
      std::vector<int32_t> ids;
      ids.reserve(kEach);
      for (size_t i = 0; i < kEach; ++i) {
        std::promise<Expected<SubjectSchema, RegistryError>> done_one;
        auto answer = done_one.get_future();
        SchemaInput input;
        input.schema = "f" + std::to_string(w) + "_" + std::to_string(i) + ":int";
        svc.register_schema("s" + std::to_string(w) + "-" + std::to_string(i), input, false,
                            [&](Expected<SubjectSchema, RegistryError> r) { done_one.set_value(std::move(r)); });
        auto r = answer.get();
        if (r) {
          ids.push_back(r->id);
        } else {
          ++failed_writes;
        }
      }
      return ids;
    }));
  }
  std::set<int32_t> ids;
  for (auto& f : writers) {
    for (const auto id : f.get()) ids.insert(id);
  }
  done = true;
  reader.join();
  CHECK(bad_reads == 0);
  CHECK(failed_writes == 0);
  CHECK(ids.size() == kWriters * kEach);
  CHECK(*ids.begin() == 1);
  CHECK(static_cast<size_t>(*ids.rbegin()) == kWriters * kEach);
  CHECK(svc.list_subjects("", false, false).size() == kWriters * kEach);
}
