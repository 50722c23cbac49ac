// skiff_cleaner_bench: log cleaner throughput (not a test).
//   skiff_cleaner_bench <dir> <total_mb> <keys> <value_bytes> [codec 0-4] [dedupe_mb]
// Writes total_mb of updates over `keys` keys (batches of 10 records, 16 MiB
// segments), then cleans the whole dirty range once with the default dedupe
// buffer (128 MiB, as log.cleaner.dedupe.buffer.size) and prints the dirty
// MB cleaned per second, passes, and the size before/after.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "log/batch_builder.h"
#include "log/compression.h"
#include "log/log.h"
#include "log/log_cleaner.h"

using namespace skiff;
using namespace skiff::storage;
using Clock = std::chrono::steady_clock;

namespace {

std::vector<uint8_t> batch(std::mt19937_64& rng, int keys, size_t value_bytes, Compression codec, int64_t ts) {
  BatchBuilder b;
  std::string v(value_bytes, 'x');
  for (int i = 0; i < 10; ++i) {
    for (auto& c : v) c = static_cast<char>('a' + rng() % 26);
    b.add("key-" + std::to_string(rng() % static_cast<uint64_t>(keys)), v, ts);
  }
  auto bytes = b.build();
  if (codec == Compression::kNone) return bytes;
  RecordBatchView view(bytes);
  auto body = compress(codec, view.records_bytes());
  std::vector<uint8_t> out(bytes.begin(), bytes.begin() + batch_layout::kHeaderSize);
  out.insert(out.end(), body->begin(), body->end());
  store_be32(out.data() + batch_layout::kBatchLength, static_cast<uint32_t>(out.size() - 12));
  store_be16(out.data() + batch_layout::kAttributes, static_cast<uint16_t>(codec));
  store_be32(out.data() + batch_layout::kCrc, RecordBatchView(out).compute_crc());
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s <dir> <total_mb> <keys> <value_bytes> [codec] [dedupe_mb]\n", argv[0]);
    return 2;
  }
  const int64_t total = std::atoll(argv[2]) * 1024 * 1024;
  const int keys = std::atoi(argv[3]);
  const size_t value_bytes = static_cast<size_t>(std::atoll(argv[4]));
  const auto codec = static_cast<Compression>(argc > 5 ? std::atoi(argv[5]) : 0);
  LogConfig c;
  c.compact = true;
  c.segment_bytes = 16 << 20;
  c.message_timestamp_after_max_ms = LogConfig::kMaxLong;
  LogLoadParams p;
  p.topic = "bench";
  auto log = Log::open(argv[1], p, std::make_shared<const LogConfig>(c));
  std::mt19937_64 rng(1);
  const int64_t now = wall_clock_ms();
  while (static_cast<int64_t>(log->size_in_bytes()) < total) {
    auto b = batch(rng, keys, value_bytes, codec, now);
    if (!log->append(b, 0, now)) return 1;
  }
  (void)log->roll(now);  // a failed roll is logged; the bench cleans what was rolled
  const uint64_t before = log->size_in_bytes();
  CleanerConfig cc;
  if (argc > 6) cc.dedupe_buffer_bytes = static_cast<size_t>(std::atoll(argv[6])) << 20;
  Cleaner cleaner(cc);
  auto t0 = Clock::now();
  auto r = cleaner.clean(*log, cleaning_point(*log, -1, now), now);
  double s = std::chrono::duration<double>(Clock::now() - t0).count();
  std::printf("cleaned %.1f MB in %.2f s: %.1f MB/s, %d passes, %lld -> %lld records, %.1f -> %.1f MB, %s\n",
              static_cast<double>(before) / 1048576.0, s, static_cast<double>(before) / 1048576.0 / s, r.passes,
              static_cast<long long>(r.records_read), static_cast<long long>(r.records_kept),
              static_cast<double>(before) / 1048576.0, static_cast<double>(log->size_in_bytes()) / 1048576.0,
              r.status ? "ok" : describe(r.status.error()).c_str());
  log->close();
  return r.status ? 0 : 1;
}
