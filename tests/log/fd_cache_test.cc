// FdCache: the bound, LRU eviction, pinning, deleted files, concurrent use;
// and a LogManager with more partitions than descriptors in its cache.
#include "log/fd_cache.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <fstream>
#include <random>
#include <thread>

#include "log/log_manager.h"
#include "test_util.h"

using namespace skiff::storage;
using namespace skiff::storage::test;
namespace fs = std::filesystem;

namespace {

// Descriptors of this process open on files under `dir` (from /proc/self/fd).
size_t fds_under(const fs::path& dir) {
  size_t n = 0;
  const std::string prefix = fs::canonical(dir).string() + "/";
  for (const auto& e : fs::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    auto target = fs::read_symlink(e.path(), ec);
    if (!ec && target.string().rfind(prefix, 0) == 0) ++n;
  }
  return n;
}

std::vector<std::unique_ptr<CachedFile>> make_files(FdCache& cache, const TempDir& d, int n) {
  std::vector<std::unique_ptr<CachedFile>> files;
  for (int i = 0; i < n; ++i) {
    auto path = d / ("f" + std::to_string(i));
    std::ofstream(path) << "file" << i << '\n';
    files.push_back(std::make_unique<CachedFile>(cache, path));
  }
  return files;
}

std::string first_line(const FdRef& fd) {
  char buf[32] = {};
  size_t got = 0;
  if (pread_full(fd->fd(), buf, sizeof buf - 1, 0, &got) != 0) return "";
  std::string s(buf, got);
  return s.substr(0, s.find('\n'));
}

bool fd_is(const FdRef& fd, const fs::path& path) {
  std::error_code ec;
  return fs::read_symlink("/proc/self/fd/" + std::to_string(fd->fd()), ec) == fs::canonical(path);
}

}  // namespace

TEST_CASE("fd cache: never holds more unpinned descriptors than its capacity", "[log][fdcache]") {
  TempDir d;
  FdCache cache(4);
  auto files = make_files(cache, d, 20);
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 20; ++i) {
      auto fd = files[i]->acquire();
      REQUIRE(fd);
      CHECK(first_line(*fd) == "file" + std::to_string(i));
    }
  }
  CHECK(cache.open_count() == 4);
  CHECK(fds_under(d.path()) == 4);
  CHECK(cache.evictions() == 60 - 4);
  cache.set_capacity(2);
  CHECK(fds_under(d.path()) == 2);
  files.clear();
  CHECK(cache.open_count() == 0);
  CHECK(fds_under(d.path()) == 0);
}

TEST_CASE("fd cache: evicts the least recently used", "[log][fdcache]") {
  TempDir d;
  FdCache cache(3);
  auto f = make_files(cache, d, 4);
  for (int i : {0, 1, 2, 0}) REQUIRE(f[i]->acquire());  // 0 used again: 1 is now the oldest
  REQUIRE(f[3]->acquire());
  CHECK(f[0]->is_open());
  CHECK(!f[1]->is_open());
  CHECK(f[2]->is_open());
  CHECK(f[3]->is_open());
  const auto opens = cache.opens();
  REQUIRE(f[1]->acquire());  // reopened on demand, evicting 2 (now the oldest)
  CHECK(cache.opens() == opens + 1);
  CHECK(!f[2]->is_open());
}

TEST_CASE("fd cache: a pinned descriptor is never closed, even over capacity", "[log][fdcache]") {
  TempDir d;
  FdCache cache(2);
  auto f = make_files(cache, d, 6);
  std::vector<FdRef> pins;
  for (int i = 0; i < 4; ++i) pins.push_back(*f[i]->acquire());
  CHECK(cache.open_count() == 4);  // over capacity rather than failing
  for (int i = 4; i < 6; ++i) REQUIRE(f[i]->acquire());
  for (int i = 0; i < 4; ++i) {
    CHECK(f[i]->is_open());
    CHECK(::fcntl(pins[i]->fd(), F_GETFD) != -1);
    CHECK(fd_is(pins[i], d / ("f" + std::to_string(i))));
    CHECK(first_line(pins[i]) == "file" + std::to_string(i));
  }
  CHECK(cache.open_count() == 5);  // 4 was evicted; 5, the newest, waits for pins to go
  pins.clear();
  REQUIRE(f[5]->acquire());
  CHECK(cache.open_count() == 2);
  CHECK(fds_under(d.path()) == 2);
}

TEST_CASE("fd cache: a pinned descriptor survives its file's deletion and the CachedFile", "[log][fdcache]") {
  TempDir d;
  FdCache cache(1);
  auto f = make_files(cache, d, 2);
  auto pin = *f[0]->acquire();
  fs::remove(d / "f0");
  f[0].reset();  // the segment is gone; the reader still holds its region
  REQUIRE(f[1]->acquire());
  CHECK(first_line(pin) == "file0");
  // Not pinned and evicted: a deleted file is not recreated on reopen.
  auto g = std::make_unique<CachedFile>(cache, d / "f1");
  REQUIRE(g->acquire());
  fs::remove(d / "f1");
  g->close();
  auto gone = g->acquire();
  REQUIRE(!gone);
  CHECK(gone.error().sys_errno == ENOENT);
  CHECK(!fs::exists(d / "f1"));
}

TEST_CASE("fd cache: concurrent acquire, read and release from many threads", "[log][fdcache]") {
  TempDir d;
  FdCache cache(8);
  auto f = make_files(cache, d, 64);
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(t);
      std::vector<FdRef> held;
      for (int i = 0; i < 3000; ++i) {
        int k = static_cast<int>(rng() % 64);
        auto got = f[k]->acquire();
        FdRef fd = got ? *got : nullptr;
        if (!fd || first_line(fd) != "file" + std::to_string(k)) ++bad;
        if (rng() % 4 == 0) held.push_back(fd);  // some pins outlive the next acquires
        if (held.size() > 3) held.erase(held.begin());
        if (t == 0 && i % 500 == 0) cache.set_capacity(4 + (i / 500) % 8);
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(bad == 0);
  cache.set_capacity(8);
  CHECK(cache.open_count() <= 8);
  CHECK(fds_under(d.path()) == cache.open_count());
}

TEST_CASE("log manager: more partitions than cached descriptors, appends and reads across all", "[log][fdcache]") {
  TempDir d;
  LogManagerConfig c;
  c.log_dirs = {d / "dir0"};
  c.defaults.message_timestamp_after_max_ms = LogConfig::kMaxLong;
  c.defaults.segment_bytes = 4096;  // several segments per partition: inactive ones too
  c.defaults.index_interval_bytes = 256;
  c.fd_cache_capacity = 16;
  constexpr int kTopics = 4, kParts = 25, kRounds = 16;  // 100 partitions, ~1,000 segment files
  auto name = [](int t) { return "t" + std::to_string(t); };
  std::map<std::pair<int, int>, std::vector<std::vector<uint8_t>>> sent;
  {
    LogManager m(c);
    for (int t = 0; t < kTopics; ++t) REQUIRE(outcome(m.create_topic(name(t), kParts)) == LogErrc::kNone);
    for (int r = 0; r < kRounds; ++r) {
      for (int t = 0; t < kTopics; ++t) {
        for (int p = 0; p < kParts; ++p) {
          auto b = make_test_batch(3, 300, 1000 + r, static_cast<uint64_t>(r * 1000 + t * 100 + p));
          auto res = m.get_log(name(t), p)->append(b);
          REQUIRE(res.has_value());
          sent[{t, p}].push_back(b);
        }
      }
      CHECK(m.fd_cache().open_count() <= 16);
    }
    CHECK(m.get_log("t0", 0)->segment_count() >= 4);
    for (auto& [tp, batches] : sent) {
      CHECK(read_all_batches(*m.get_log(name(tp.first), tp.second)) == batches);
      CHECK(m.get_log(name(tp.first), tp.second)->offset_for_timestamp(1005).offset.value == 15);
    }
    CHECK(m.fd_cache().open_count() <= 16);
    CHECK(fds_under(d.path()) <= 16);
    CHECK(m.fd_cache().evictions() > 1000);
    m.shutdown();
  }
  LogManager m(c);  // clean restart: every partition loads through the cache, then reads back
  CHECK(fds_under(d.path()) <= 16);
  for (auto& [tp, batches] : sent) CHECK(read_all_batches(*m.get_log(name(tp.first), tp.second)) == batches);
  CHECK(fds_under(d.path()) <= 16);
}
