// skiff_log_bench: storage micro-benchmarks (not a test). Driven by
// bench/log.py.
//   append  <dir> <total_mb> <batch_bytes> <writers> <flush_messages> [segment_mb]
//   read    <dir> <max_bytes>               (sequential Fetch-style reads)
//   recover <dir>                           (unclean open, recovery point 0)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "log/batch_builder.h"
#include "log/log.h"
#include "log/record_batch.h"

using namespace skiff;
using namespace skiff::storage;
using Clock = std::chrono::steady_clock;

namespace {

double secs(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

std::shared_ptr<const LogConfig> cfg(int64_t flush_messages, int64_t segment_mb) {
  LogConfig c;
  c.flush_messages = flush_messages;
  c.segment_bytes = std::min<int64_t>(segment_mb * 1024 * 1024, INT32_MAX);
  c.message_timestamp_after_max_ms = LogConfig::kMaxLong;
  c.max_message_bytes = 64 * 1024 * 1024;
  return std::make_shared<const LogConfig>(c);
}

LogLoadParams params(bool clean) {
  LogLoadParams p;
  p.topic = "bench";
  p.clean_shutdown = clean;
  return p;
}

int append_bench(const std::string& dir, int64_t total_mb, size_t batch_bytes, int writers, int64_t flush_messages,
                 int64_t segment_mb) {
  auto log = Log::open(dir, params(false), cfg(flush_messages, segment_mb));
  // ~batch_bytes per batch: 16 records of batch_bytes/16 bytes each.
  const int records = 16;
  size_t value = batch_bytes / records > 30 ? batch_bytes / records - 30 : 1;
  auto tmpl = make_test_batch(records, value, wall_clock_ms());
  const int64_t total = total_mb * 1024 * 1024;
  const int64_t per_writer = total / static_cast<int64_t>(tmpl.size()) / writers;
  auto t0 = Clock::now();
  std::vector<std::thread> ts;
  for (int w = 0; w < writers; ++w) {
    ts.emplace_back([&] {
      auto buf = tmpl;
      for (int64_t i = 0; i < per_writer; ++i) {
        auto r = log->append(buf);
        if (!r) {
          std::fprintf(stderr, "append failed: %s\n", std::string(to_string(r.error().code)).c_str());
          std::exit(1);
        }
      }
    });
  }
  for (auto& t : ts) t.join();
  auto t1 = Clock::now();
  const double s = secs(t0, t1);
  const double bytes = static_cast<double>(per_writer * writers) * static_cast<double>(tmpl.size());
  std::printf(
      "append: writers=%d flush.messages=%lld batch=%zuB batches=%lld bytes=%.0f time=%.3fs  %.1f MB/s  %.0f "
      "batches/s\n",
      writers, static_cast<long long>(flush_messages), tmpl.size(), static_cast<long long>(per_writer * writers), bytes,
      s, bytes / s / 1e6, static_cast<double>(per_writer * writers) / s);
  // No close(): the log is left as after a crash (for the recovery bench).
  return 0;
}

int read_bench(const std::string& dir, size_t max_bytes) {
  auto log = Log::open(dir, params(true), cfg(LogConfig::kMaxLong, 2048));
  std::vector<uint8_t> buf(max_bytes + (1 << 20));
  auto t0 = Clock::now();
  int64_t o = log->log_start_offset().value;
  double bytes = 0;
  int64_t reads = 0;
  while (o < log->log_end_offset().value) {
    auto r = log->read(Offset(o), max_bytes);
    if (!r || r->slice.empty()) break;
    if (buf.size() < r->slice.length) buf.resize(r->slice.length);
    size_t got = 0;
    pread_full(r->slice.file->fd(), buf.data(), r->slice.length, r->slice.position, &got);
    // Next offset: the last batch's next offset. Walk headers in the buffer.
    BatchIterator it(std::span<uint8_t>(buf.data(), got));
    RecordBatchView v;
    while (it.next(v)) o = v.next_offset();
    bytes += static_cast<double>(got);
    ++reads;
  }
  double s = secs(t0, Clock::now());
  std::printf("read: max_bytes=%zu reads=%lld bytes=%.0f time=%.3fs  %.1f MB/s\n", max_bytes,
              static_cast<long long>(reads), bytes, s, bytes / s / 1e6);
  return 0;
}

int recover_bench(const std::string& dir) {
  auto t0 = Clock::now();
  auto log = Log::open(dir, params(false), cfg(LogConfig::kMaxLong, 2048));
  double s = secs(t0, Clock::now());
  const auto& st = log->load_stats();
  std::printf("recover: segments=%d recovered=%d bytes=%llu truncated=%llu leo=%lld time=%.3fs  %.1f MB/s\n",
              st.segments, st.segments_recovered, static_cast<unsigned long long>(log->size_in_bytes()),
              static_cast<unsigned long long>(st.bytes_truncated), static_cast<long long>(log->log_end_offset().value),
              s, static_cast<double>(log->size_in_bytes()) / s / 1e6);
  log->close();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s append|read|recover <dir> ...\n", argv[0]);
    return 2;
  }
  std::string mode = argv[1], dir = argv[2];
  auto arg = [&](int i, long long def) { return argc > i ? std::atoll(argv[i]) : def; };
  if (mode == "append") {
    return append_bench(dir, arg(3, 1024), static_cast<size_t>(arg(4, 16384)), static_cast<int>(arg(5, 1)),
                        arg(6, LogConfig::kMaxLong), arg(7, 1024));
  }
  if (mode == "read") return read_bench(dir, static_cast<size_t>(arg(3, 1 << 20)));
  if (mode == "recover") return recover_bench(dir);
  std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
  return 2;
}
