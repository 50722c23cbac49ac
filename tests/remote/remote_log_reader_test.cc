// RemoteLogReader over real logs copied by the real RemoteLogManager into an
// in-memory object store, read back and compared byte for byte with what the
// log holds: whole reads through many fetches and chunk sizes, fetches inside
// a batch, max_bytes and KIP-74, the chunk and index caches (hits, bounds),
// offsets past the remote data, store failures, aborted transactions across
// segments against the local log's own answer, timestamps, the pool's queue
// bound and shutdown, and corrupt indexes and data (never a crash or garbage).
#include "remote/reader/remote_log_reader.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <thread>

#include "log/batch_builder.h"
#include "log/cleaner_test_util.h"
#include "log/test_util.h"
#include "remote/manager/remote_log_manager.h"
#include "remote/memory_segment_store.h"
#include "remote/remote_test_util.h"

using namespace skiff;
using namespace skiff::remote;
using skiff::storage::test::TempDir;

namespace {

using MemoryStore = skiff::remote::test::MemorySegmentStore;

using skiff::remote::test::logs_config;

// A log with remote storage on, filled by `fill`, flushed, and its closed
// segments copied to the memory store by the remote log manager.
struct Fixture {
  explicit Fixture(const std::function<void(storage::Log&)>& fill,
                   const std::map<std::string, std::string>& topic_config = {{"internal.segment.bytes", "3000"},
                                                                             {"index.interval.bytes", "1"}})
      : logs(logs_config(dir)), metadata(logs, MetadataTopicConfig{1, -1, 0}) {
    metadata.start();
    REQUIRE(logs.create_topic("t", 1, topic_config));
    log = logs.get_log("t", 0);
    auto cfg = std::make_shared<storage::LogConfig>(*log->config());
    cfg->remote_storage_enable = true;
    log->set_config(cfg);
    fill(*log);
    REQUIRE(log->flush());
    tp = TopicIdPartition{logs.topic("t")->topic_id, "t", 0};
    RemoteLogManagerConfig rc;
    rc.copier_threads = 1;
    rc.expiration_threads = 1;
    RemoteLogManager rlm(logs, metadata, store, rc);
    REQUIRE(rlm.run_copy_once(5000) > 0);
    segments = metadata.segments(tp);
    remote_end = segments.back().end_offset;
  }

  // The log's own batches from `from` up to the end of the remote data, back to back.
  std::string expected(int64_t from = 0) const {
    std::string out;
    for (const auto& b : storage::test::read_all_batches(*log, from)) {
      storage::RecordBatchView v(std::span<uint8_t>(const_cast<uint8_t*>(b.data()), b.size()));
      if (v.last_offset() > remote_end) break;
      out.append(reinterpret_cast<const char*>(b.data()), b.size());
    }
    return out;
  }

  TempDir dir;
  storage::LogManager logs;
  RemoteLogMetadataManager metadata;
  MemoryStore store;
  std::shared_ptr<storage::Log> log;
  TopicIdPartition tp;
  std::vector<RemoteLogSegmentMetadata> segments;
  int64_t remote_end = -1;
};

// `segments` full segments of 3 batches and one more batch; batch i holds
// offsets 2i, 2i+1 at timestamp 1000 + i.
std::function<void(storage::Log&)> plain(int segments) {
  return [segments](storage::Log& log) {
    for (int i = 0; i < segments * 3 + 1; ++i) {
      auto b = storage::make_test_batch(2, 400, 1000 + i);
      REQUIRE(log.append(b, 0, 2000).has_value());
    }
  };
}

struct BatchSpan {
  int64_t base;
  int64_t last;
  bool operator==(const BatchSpan&) const = default;
};

std::vector<BatchSpan> batches_of(const std::string& records) {
  std::vector<uint8_t> bytes(records.begin(), records.end());
  storage::BatchIterator it(bytes);
  storage::RecordBatchView v;
  std::vector<BatchSpan> out;
  while (it.next(v)) out.push_back({v.base_offset(), v.last_offset()});
  REQUIRE(it.remaining() == 0);
  return out;
}

RemoteFetchRequest request(const Fixture& f, int64_t offset, size_t max_bytes, bool min_one = true) {
  RemoteFetchRequest r;
  r.tp = f.tp;
  r.fetch_offset = offset;
  r.max_bytes = max_bytes;
  r.min_one_message = min_one;
  return r;
}

RemoteReaderConfig small_config(uint64_t chunk_bytes = 1024) {
  RemoteReaderConfig c;
  c.threads = 2;
  c.chunk_bytes = chunk_bytes;
  return c;
}

// Everything from `from` to the end of the remote data through fetches of `max_bytes`.
std::string read_to_end(RemoteLogReader& r, const Fixture& f, size_t max_bytes, int64_t from = 0) {
  std::string all;
  for (int64_t o = from; o <= f.remote_end;) {
    auto res = r.read(request(f, o, max_bytes));
    REQUIRE_FALSE(res.error.has_value());
    REQUIRE_FALSE(res.offset_out_of_range);
    REQUIRE_FALSE(res.records.empty());
    REQUIRE(res.next_offset > o);
    all += res.records;
    o = res.next_offset;
  }
  return all;
}

}  // namespace

TEST_CASE("remote reader: offset 0 to the end through many fetches is the log's bytes", "[remote][reader]") {
  Fixture f(plain(4));
  REQUIRE(f.segments.size() >= 4);
  const std::string want = f.expected();
  REQUIRE_FALSE(want.empty());
  for (uint64_t chunk : {100ull, 1000ull, 4096ull, 4ull << 20}) {
    for (size_t max_bytes : {size_t{1}, size_t{2000}, size_t{1} << 20}) {
      RemoteLogReader r(f.metadata, f.store, small_config(chunk));
      CAPTURE(chunk, max_bytes);
      CHECK(read_to_end(r, f, max_bytes) == want);
    }
  }
}

TEST_CASE("remote reader: a fetch inside a batch returns that batch whole", "[remote][reader]") {
  Fixture f(plain(3));
  RemoteLogReader r(f.metadata, f.store, small_config());
  auto res = r.read(request(f, 3, 1));
  REQUIRE_FALSE(res.error.has_value());
  CHECK(batches_of(res.records) == std::vector<BatchSpan>{{2, 3}});
  CHECK(res.next_offset == 4);
  res = r.read(request(f, 7, 1 << 20));  // the second segment (6..11): from its first batch to its end
  CHECK(batches_of(res.records) == std::vector<BatchSpan>{{6, 7}, {8, 9}, {10, 11}});
  CHECK(res.next_offset == 12);
  CHECK(res.records == f.expected(6).substr(0, res.records.size()));
}

TEST_CASE("remote reader: max_bytes trims to whole batches, and KIP-74's first batch", "[remote][reader]") {
  Fixture f(plain(3));
  RemoteLogReader r(f.metadata, f.store, small_config());
  const size_t one = f.expected().size() / 9;  // 9 remote batches of one size
  auto res = r.read(request(f, 0, 2 * one + one / 2));
  CHECK(batches_of(res.records) == std::vector<BatchSpan>{{0, 1}, {2, 3}});
  CHECK(res.next_offset == 4);
  res = r.read(request(f, 0, one));
  CHECK(batches_of(res.records) == std::vector<BatchSpan>{{0, 1}});
  res = r.read(request(f, 0, one - 1, /*min_one=*/false));
  CHECK_FALSE(res.error.has_value());
  CHECK(res.records.empty());
  CHECK(res.next_offset == 0);
  res = r.read(request(f, 0, 10, /*min_one=*/true));
  CHECK(batches_of(res.records) == std::vector<BatchSpan>{{0, 1}});
}

TEST_CASE("remote reader: min_one_message returns a batch larger than max_bytes across many chunks",
          "[remote][reader]") {
  Fixture f(
      [](storage::Log& log) {
        auto big = storage::make_test_batch(10, 2000, 1000);
        REQUIRE(log.append(big, 0, 2000).has_value());  // 0-9, ~20 KB
        auto small = storage::make_test_batch(1, 10, 1001);
        REQUIRE(log.append(small, 0, 2000).has_value());  // 10
        REQUIRE(log.roll(2000).has_value());
        REQUIRE(log.append(small, 0, 2000).has_value());  // 11, active
      },
      {{"internal.segment.bytes", "1000000"}});
  RemoteLogReader r(f.metadata, f.store, small_config(1024));
  auto res = r.read(request(f, 4, 100));
  CHECK(batches_of(res.records) == std::vector<BatchSpan>{{0, 9}});
  CHECK(res.records.size() > 20000);
  CHECK(res.records == f.expected().substr(0, res.records.size()));
  CHECK(res.next_offset == 10);
  // Only the chunks the batch covers (and the next header's) were fetched.
  CHECK(static_cast<uint64_t>(r.stats().bytes_fetched.load()) <= res.records.size() + 2048);
  CHECK(r.read(request(f, 4, 100, false)).records.empty());
}

TEST_CASE("remote reader: sequential reads hit the chunk cache", "[remote][reader]") {
  Fixture f(plain(3));
  RemoteLogReader r(f.metadata, f.store, small_config(1 << 20));  // one chunk holds a whole segment
  const int before = f.store.log_fetches;
  CHECK(read_to_end(r, f, 1) == f.expected());
  CHECK(f.store.log_fetches - before == static_cast<int>(f.segments.size()));
  CHECK(r.stats().chunk_misses.load() == static_cast<int64_t>(f.segments.size()));
  CHECK(r.stats().chunk_hits.load() >= 9 - static_cast<int64_t>(f.segments.size()));
  CHECK(r.stats().reads.load() == 9);

  SECTION("a cache too small keeps nothing and reads fetch again") {
    RemoteReaderConfig c = small_config(1 << 20);
    c.chunk_cache_bytes = 100;
    RemoteLogReader tiny(f.metadata, f.store, c);
    const int start = f.store.log_fetches;
    CHECK(read_to_end(tiny, f, 1) == f.expected());
    CHECK(f.store.log_fetches - start >= 9);
    CHECK(tiny.stats().chunk_cache_bytes.load() == 0);
  }
}

TEST_CASE("remote reader: threads reading at once share the caches and each gets the log's bytes",
          "[remote][reader][pool]") {
  Fixture f(plain(4));
  const std::string want = f.expected();
  RemoteReaderConfig c = small_config(700);
  c.chunk_cache_bytes = 3000;  // a few chunks: evictions while others read
  c.index_cache_bytes = 400;
  c.threads = 3;
  RemoteLogReader r(f.metadata, f.store, c);
  r.start();
  std::vector<std::string> got(4);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < got.size(); ++i)
    threads.emplace_back([&, i] {
      for (int64_t o = 0; o <= f.remote_end;) {  // through the pool, one read at a time
        std::promise<RemoteFetchResult> p;
        auto fut = p.get_future();
        while (!r.submit(request(f, o, 1 + i * 1500), [&p](RemoteFetchResult res) { p.set_value(std::move(res)); }))
          std::this_thread::yield();
        auto res = fut.get();
        if (res.error || res.records.empty()) return;
        got[i] += res.records;
        o = res.next_offset;
      }
    });
  for (auto& t : threads) t.join();
  for (const auto& g : got) CHECK(g == want);
  CHECK(r.stats().chunk_cache_bytes.load() <= 3000);
  CHECK(r.stats().index_cache_bytes.load() <= 400);
}

TEST_CASE("remote reader: the index cache is bounded by bytes and evicts the least recent", "[remote][reader]") {
  Fixture f(plain(3));
  RemoteReaderConfig c = small_config();
  c.index_cache_bytes = 200;  // one offset index of three entries (176 bytes)
  RemoteLogReader r(f.metadata, f.store, c);
  const int before = f.store.index_fetches;
  CHECK_FALSE(r.read(request(f, 0, 1)).error);
  CHECK_FALSE(r.read(request(f, 1, 1)).error);  // the same segment: a hit
  CHECK_FALSE(r.read(request(f, 6, 1)).error);  // the next segment evicts the first
  CHECK_FALSE(r.read(request(f, 0, 1)).error);  // fetched again
  CHECK(f.store.index_fetches - before == 3);
  CHECK(r.stats().index_misses.load() == 3);
  CHECK(r.stats().index_hits.load() == 1);
  CHECK(r.stats().index_cache_bytes.load() <= 200);

  RemoteLogReader big(f.metadata, f.store, small_config());
  for (int64_t o : {0, 1, 6, 0}) CHECK_FALSE(big.read(request(f, o, 1)).error);
  CHECK(big.stats().index_misses.load() == 2);
}

TEST_CASE("remote reader: an offset no remote segment holds is out of range", "[remote][reader]") {
  Fixture f(plain(2));
  RemoteLogReader r(f.metadata, f.store, small_config());
  for (int64_t o : {f.remote_end + 1, f.remote_end + 1000, int64_t{-1}}) {
    auto res = r.read(request(f, o, 1000));
    CHECK(res.offset_out_of_range);
    CHECK_FALSE(res.error);
    CHECK(res.records.empty());
  }
  auto other = request(f, 0, 1000);
  other.tp.topic_id = Uuid::random();
  CHECK(r.read(other).offset_out_of_range);
}

TEST_CASE("remote reader: a store failure is a retriable error and the next read succeeds", "[remote][reader]") {
  Fixture f(plain(2));
  RemoteLogReader r(f.metadata, f.store, small_config());
  f.store.fail_fetches = 1;  // the offset index
  auto res = r.read(request(f, 0, 1000));
  REQUIRE(res.error);
  CHECK(res.error->retriable);
  CHECK(res.records.empty());
  CHECK(r.read(request(f, 0, 1000)).records == f.expected().substr(0, r.read(request(f, 0, 1000)).records.size()));
  f.store.fail_fetches = 1;  // now a chunk of the second segment (its index is not cached either: that fails first)
  res = r.read(request(f, 6, 1000));
  REQUIRE(res.error);
  CHECK(res.error->retriable);
  f.store.fail_fetches = 0;
  CHECK_FALSE(r.read(request(f, 6, 1000)).error);
  CHECK(r.stats().read_errors.load() == 2);
}

namespace {

// Four segments with transactions (storage::test's txn_batch and marker):
//   A: pid 1 txn 0-1, ABORT 2          B: pid 2 txn 3-4, plain 5-6
//   C: ABORT pid 2 @7, pid 3 txn 8-9, COMMIT 10     D: plain 11-12
void transactions(storage::Log& log) {
  using storage::test::append_tmp;
  using storage::test::marker;
  using storage::test::txn_batch;
  REQUIRE(append_tmp(log, txn_batch(1, 0, 0)).has_value());
  REQUIRE(marker(log, 1, 0, /*commit=*/false).has_value());
  REQUIRE(log.roll(2000).has_value());
  REQUIRE(append_tmp(log, txn_batch(2, 0, 0)).has_value());
  REQUIRE(append_tmp(log, storage::make_test_batch(2, 10, 1000)).has_value());
  REQUIRE(log.roll(2000).has_value());
  REQUIRE(marker(log, 2, 0, /*commit=*/false).has_value());
  REQUIRE(append_tmp(log, txn_batch(3, 0, 0)).has_value());
  REQUIRE(marker(log, 3, 0, /*commit=*/true).has_value());
  REQUIRE(log.roll(2000).has_value());
  REQUIRE(append_tmp(log, storage::make_test_batch(2, 10, 1000)).has_value());
  REQUIRE(log.roll(2000).has_value());
}

std::vector<AbortedTxn> local_aborted(const storage::Log& log, int64_t from, int64_t upper) {
  std::vector<AbortedTxn> out;
  for (const auto& t : log.collect_aborted_txns(storage::Offset(from), storage::Offset(upper)))
    out.push_back({t.producer_id, t.first_offset});
  return out;
}

}  // namespace

TEST_CASE("remote reader: read_committed collects aborted transactions over several segments", "[remote][reader]") {
  Fixture f(transactions, {{"internal.segment.bytes", "1000000"}});
  REQUIRE(f.segments.size() == 4);
  CHECK(f.segments[0].txn_index_empty == false);
  CHECK(f.segments[1].txn_index_empty == true);
  RemoteLogReader r(f.metadata, f.store, small_config());
  auto committed = [&](int64_t offset) {
    auto req = request(f, offset, 1 << 20);
    req.read_committed = true;
    auto res = r.read(req);
    REQUIRE_FALSE(res.error);
    return res;
  };
  auto a = committed(0);
  CHECK(a.next_offset == 3);
  CHECK(a.aborted == std::vector<AbortedTxn>{{1, 0}});
  CHECK(a.aborted == local_aborted(*f.log, 0, 3));
  CHECK(a.aborted_complete);

  auto b = committed(4);  // B's records; the abort of pid 2 is in C's index
  CHECK(batches_of(b.records).front().base == 3);
  CHECK(b.next_offset == 7);
  CHECK(b.aborted == std::vector<AbortedTxn>{{2, 3}});
  CHECK(b.aborted == local_aborted(*f.log, 3, 7));
  CHECK(b.aborted_complete);

  auto c = committed(8);  // nothing aborted overlaps 8..10, and no later index completes the search
  CHECK(c.next_offset == 11);
  CHECK(c.aborted.empty());
  CHECK(c.aborted == local_aborted(*f.log, 8, 11));
  CHECK_FALSE(c.aborted_complete);  // the caller goes on with the local log

  auto d = committed(11);
  CHECK(d.aborted.empty());
  CHECK_FALSE(d.aborted_complete);

  auto uncommitted = r.read(request(f, 0, 1 << 20));
  CHECK(uncommitted.aborted.empty());  // only read_committed collects

  SECTION("a transaction index of an unknown version fails the read_committed read, not the others") {
    std::string bad(storage::kAbortedTxnSize, '\0');
    bad[1] = 9;  // version 9
    f.store.objects[f.segments[2].id.id].indexes[IndexType::kTransaction] = bad;
    RemoteLogReader fresh(f.metadata, f.store, small_config());
    auto req = request(f, 3, 1 << 20);
    req.read_committed = true;
    auto res = fresh.read(req);
    REQUIRE(res.error);
    CHECK_FALSE(res.error->retriable);
    CHECK(res.records.empty());
    req.read_committed = false;
    CHECK_FALSE(fresh.read(req).error);
  }
  SECTION("a partial last entry is ignored") {
    f.store.objects[f.segments[2].id.id].indexes[IndexType::kTransaction] += std::string(10, '\x01');
    RemoteLogReader fresh(f.metadata, f.store, small_config());
    auto req = request(f, 4, 1 << 20);
    req.read_committed = true;
    CHECK(fresh.read(req).aborted == std::vector<AbortedTxn>{{2, 3}});
  }
}

TEST_CASE("remote reader: find_offset_by_timestamp", "[remote][reader]") {
  Fixture f(plain(4));  // remote: batches 0..11, batch i at 1000 + i
  REQUIRE(f.remote_end == 23);
  RemoteLogReader r(f.metadata, f.store, small_config());
  using TO = RemoteLogReader::TimestampAndOffset;
  auto find = [&](int64_t ts, int64_t start) {
    auto res = r.find_offset_by_timestamp(f.tp, ts, start);
    REQUIRE(res);
    return *res;
  };
  CHECK(find(1003, 0) == TO{1003, 6});
  CHECK(find(0, 0) == TO{1000, 0});
  CHECK(find(1000, 5) == TO{1002, 5});
  CHECK(find(1011, 0) == TO{1011, 22});
  CHECK(find(1007, 16) == TO{1008, 16});
  CHECK_FALSE(find(1012, 0).has_value());   // newer than every remote record
  CHECK_FALSE(find(1000, 24).has_value());  // past the remote data
  f.store.fail_fetches = 1;
  RemoteLogReader failing(f.metadata, f.store, small_config());
  auto res = failing.find_offset_by_timestamp(f.tp, 1003, 0);
  REQUIRE_FALSE(res);
  CHECK(res.error().retriable);
}

TEST_CASE("remote reader: timestamp lookups run on the pool", "[remote][reader][pool]") {
  Fixture f(plain(4));
  RemoteLogReader r(f.metadata, f.store, small_config());
  r.start();
  using TO = RemoteLogReader::TimestampAndOffset;
  std::promise<RsmResult<std::optional<TO>>> got;
  REQUIRE(r.submit_offset_for_timestamp(f.tp, 1003, 0, [&](auto res) { got.set_value(std::move(res)); }));
  auto res = got.get_future().get();
  REQUIRE(res);
  CHECK(*res == TO{1003, 6});
  r.stop();
  CHECK_FALSE(r.submit_offset_for_timestamp(f.tp, 1003, 0, [](auto) { FAIL("refused lookups never complete"); }));

  RemoteLogReader idle(f.metadata, f.store, small_config());  // never started: stop() answers its queue
  std::optional<RsmResult<std::optional<TO>>> answered;
  REQUIRE(idle.submit_offset_for_timestamp(f.tp, 1003, 0, [&](auto r2) { answered = std::move(r2); }));
  idle.stop();
  REQUIRE(answered);
  REQUIRE_FALSE(*answered);
  CHECK_THAT(answered->error().message, Catch::Contains("shutting down"));
}

TEST_CASE("remote reader: find_offset_by_timestamp looks inside compressed batches", "[remote][reader]") {
  Fixture f(
      [](storage::Log& log) {
        storage::BatchBuilder b;
        b.add("a", "1", 1000).add("b", "2", 1005).add("c", "3", 1010);
        for (auto codec : {storage::Compression::kZstd, storage::Compression::kGzip}) {
          auto z = storage::test::with_codec(b.build(), codec);
          REQUIRE(log.append(z, 0, 2000).has_value());
        }
        REQUIRE(log.roll(2000).has_value());
        auto tail = storage::make_test_batch(1, 10, 2000);
        REQUIRE(log.append(tail, 0, 2000).has_value());
      },
      {{"internal.segment.bytes", "1000000"}});
  REQUIRE(f.remote_end == 5);
  RemoteLogReader r(f.metadata, f.store, small_config());
  using TO = RemoteLogReader::TimestampAndOffset;
  auto find = [&](int64_t ts, int64_t start) {
    auto res = r.find_offset_by_timestamp(f.tp, ts, start);
    REQUIRE(res);
    return *res;
  };
  CHECK(find(1004, 0) == TO{1005, 1});
  CHECK(find(1010, 0) == TO{1010, 2});
  CHECK(find(1001, 3) == TO{1005, 4});  // the second (gzip) batch
  CHECK(find(1006, 3) == TO{1010, 5});
  CHECK(read_to_end(r, f, 1) == f.expected());
}

namespace {

// A log fetch that waits until the gate opens (the pool tests).
class GatedStore : public SegmentStore {
 public:
  explicit GatedStore(MemoryStore& inner) : inner_(inner) {}
  RsmResult<std::optional<std::string>> copy(const RemoteLogSegmentMetadata& s, const LogSegmentData& d) override {
    return inner_.copy(s, d);
  }
  RsmResult<void> remove(const RemoteLogSegmentMetadata& s) override { return inner_.remove(s); }
  RsmResult<std::string> fetch_log_segment(const RemoteLogSegmentMetadata& s, uint64_t start,
                                           std::optional<uint64_t> end) override {
    {
      std::unique_lock lk(mu_);
      ++waiting_;
      cv_.notify_all();
      cv_.wait(lk, [this] { return open_; });
    }
    return inner_.fetch_log_segment(s, start, end);
  }
  RsmResult<std::optional<std::string>> fetch_index(const RemoteLogSegmentMetadata& s, IndexType type) override {
    return inner_.fetch_index(s, type);
  }
  void wait_for_waiter() {
    std::unique_lock lk(mu_);
    REQUIRE(cv_.wait_for(lk, std::chrono::seconds(30), [this] { return waiting_ > 0; }));
  }
  void open() {
    std::lock_guard lk(mu_);
    open_ = true;
    cv_.notify_all();
  }

 private:
  MemoryStore& inner_;
  std::mutex mu_;
  std::condition_variable cv_;
  int waiting_ = 0;
  bool open_ = false;
};

// Results of submitted reads, in completion order.
struct Completions {
  void add(RemoteFetchResult r) {
    std::lock_guard lk(mu);
    results.push_back(std::move(r));
    cv.notify_all();
  }
  std::vector<RemoteFetchResult> wait_for(size_t n) {
    std::unique_lock lk(mu);
    REQUIRE(cv.wait_for(lk, std::chrono::seconds(30), [&] { return results.size() >= n; }));
    return results;
  }
  std::mutex mu;
  std::condition_variable cv;
  std::vector<RemoteFetchResult> results;
};

}  // namespace

TEST_CASE("remote reader: submit() refuses reads beyond max_pending", "[remote][reader][pool]") {
  Fixture f(plain(2));
  GatedStore gated(f.store);
  RemoteReaderConfig c = small_config();
  c.threads = 1;
  c.max_pending = 2;
  RemoteLogReader r(f.metadata, gated, c);
  r.start();
  Completions done;
  auto cb = [&](RemoteFetchResult res) { done.add(std::move(res)); };
  REQUIRE(r.submit(request(f, 0, 1000), cb));  // taken by the one thread, waits in the store
  gated.wait_for_waiter();
  CHECK(r.submit(request(f, 2, 1000), cb));
  CHECK(r.submit(request(f, 6, 1000), cb));
  CHECK_FALSE(r.submit(request(f, 8, 1000), cb));  // two waiting already
  CHECK(r.stats().rejected.load() == 1);
  gated.open();
  auto results = done.wait_for(3);
  for (const auto& res : results) {
    CHECK_FALSE(res.error);
    CHECK_FALSE(res.records.empty());
  }
  r.stop();
  CHECK(done.results.size() == 3);
}

TEST_CASE("remote reader: stop() completes queued reads with a shutting-down error", "[remote][reader][pool]") {
  Fixture f(plain(2));
  GatedStore gated(f.store);
  RemoteReaderConfig c = small_config();
  c.threads = 1;
  RemoteLogReader r(f.metadata, gated, c);
  r.start();
  Completions done;
  auto cb = [&](RemoteFetchResult res) { done.add(std::move(res)); };
  REQUIRE(r.submit(request(f, 0, 1000), cb));
  gated.wait_for_waiter();
  REQUIRE(r.submit(request(f, 2, 1000), cb));
  REQUIRE(r.submit(request(f, 6, 1000), cb));
  std::thread stopper([&] { r.stop(); });
  while (!r.stopping()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  gated.open();
  stopper.join();
  auto results = done.wait_for(3);
  REQUIRE(results.size() == 3);
  CHECK_FALSE(results[0].error);  // running when stop() came: it finished
  for (size_t i = 1; i < 3; ++i) {
    REQUIRE(results[i].error);
    CHECK_FALSE(results[i].error->retriable);
    CHECK_THAT(results[i].error->message, Catch::Contains("shutting down"));
  }
  CHECK_FALSE(r.submit(request(f, 0, 1000), cb));
  CHECK(r.read(request(f, 0, 1000)).error);

  SECTION("a reader never started answers its queue at stop()") {
    RemoteLogReader idle(f.metadata, f.store, c);
    Completions idle_done;
    REQUIRE(idle.submit(request(f, 0, 1000), [&](RemoteFetchResult res) { idle_done.add(std::move(res)); }));
    idle.stop();
    REQUIRE(idle_done.results.size() == 1);
    CHECK(idle_done.results[0].error);
  }
}

TEST_CASE("remote reader: corrupt indexes and data never crash nor return garbage", "[remote][reader]") {
  Fixture f(plain(3));
  const std::string want = f.expected();
  auto put_offset_index = [&](const std::string& bytes) {
    for (const auto& s : f.segments) f.store.objects[s.id.id].indexes[IndexType::kOffset] = bytes;
  };
  auto be32 = [](uint32_t v) {
    std::string s(4, '\0');
    for (int i = 0; i < 4; ++i) s[i] = static_cast<char>(v >> (24 - 8 * i));
    return s;
  };
  std::string random(1000, '\0');
  for (size_t i = 0; i < random.size(); ++i) random[i] = static_cast<char>((i * 131 + 7) % 251);
  const std::vector<std::string> garbage = {
      random,
      "abc",                                           // shorter than one entry
      std::string(80, '\0'),                           // Kafka's zero tail only
      be32(1) + be32(99999999),                        // past the segment's end
      be32(3) + be32(10),                              // inside a batch
      be32(5) + be32(0x7fffffff) + be32(1) + be32(1),  // decreasing
      be32(0xffffffff) + be32(0xffffffff),             // negative
  };
  for (const auto& g : garbage) {
    put_offset_index(g);
    for (const auto& s : f.segments) f.store.objects[s.id.id].indexes[IndexType::kTimestamp] = g;
    RemoteLogReader r(f.metadata, f.store, small_config(512));
    CHECK(read_to_end(r, f, 1) == want);
    CHECK(read_to_end(r, f, 5000, 3) == f.expected(3));
    auto ts = r.find_offset_by_timestamp(f.tp, 1004, 0);
    REQUIRE(ts);
    CHECK(*ts == RemoteLogReader::TimestampAndOffset{1004, 8});
  }

  SECTION("a flipped byte in a batch ends the data before it; reading at it is an error") {
    auto& log = f.store.objects[f.segments[0].id.id].log;
    const size_t one = want.size() / 9;
    log[one + 200] = static_cast<char>(log[one + 200] ^ 0x5a);  // inside the second batch (2-3)
    RemoteLogReader r(f.metadata, f.store, small_config(512));
    auto res = r.read(request(f, 0, 1 << 20));
    CHECK(batches_of(res.records) == std::vector<BatchSpan>{{0, 1}});
    res = r.read(request(f, 2, 1 << 20));
    REQUIRE(res.error);
    CHECK_FALSE(res.error->retriable);
    CHECK(r.read(request(f, 6, 1 << 20)).records == want.substr(3 * one, 3 * one));  // other segments are fine
  }
  SECTION("a segment cut short serves its whole batches") {
    auto& log = f.store.objects[f.segments[0].id.id].log;
    log.resize(log.size() - 100);
    RemoteLogReader r(f.metadata, f.store, small_config(512));
    auto res = r.read(request(f, 0, 1 << 20));
    CHECK(batches_of(res.records) == std::vector<BatchSpan>{{0, 1}, {2, 3}});
    CHECK(r.read(request(f, 4, 1 << 20)).error);
  }
}
