// rsm_cli write-segment: a real segment written by storage::Log.
#include <iostream>

#include "common/json_writer.h"
#include "common/wall_clock.h"
#include "log/batch_builder.h"
#include "log/log.h"
#include "tools/rsm_cli/rsm_cli.h"

namespace skiff::tools::rsmcli {

namespace {

using storage::BatchBuilder;

std::vector<uint8_t> txn_batch(int64_t pid, int32_t seq, int records, size_t value_size) {
  BatchBuilder b;
  b.producer(pid, 0, seq).transactional(true);
  const std::string value(value_size, 't');
  for (int i = 0; i < records; ++i) b.add("k", value, wall_clock_ms());
  return b.build();
}

// Appends until the log holds `bytes`: plain batches, and every tenth round a
// transaction of producer 1, every other one aborted. Returns the aborts.
int fill(storage::Log& log, uint64_t bytes) {
  int round = 0, aborted = 0;
  int32_t seq = 0;
  while (log.size_in_bytes() < bytes) {
    auto b = storage::make_test_batch(20, 1000, wall_clock_ms(), static_cast<uint64_t>(round));
    if (!log.append(b)) throw std::runtime_error("append failed");
    if (round % 10 == 0) {
      auto t = txn_batch(1, seq, 5, 500);
      seq += 5;
      if (!log.append(t)) throw std::runtime_error("transactional append failed");
      const bool commit = (round / 10) % 2 == 0;
      if (!log.append_marker(1, 0, commit, 0, 1, 0, wall_clock_ms())) throw std::runtime_error("marker failed");
      if (!commit) ++aborted;
    }
    ++round;
  }
  return aborted;
}

}  // namespace

int write_segment(const Args& args) {
  const std::filesystem::path dir = args.get("--dir");
  const uint64_t bytes = args.number("--mib", 3) << 20;
  storage::LogConfig c;
  c.message_timestamp_after_max_ms = storage::LogConfig::kMaxLong;
  storage::LogLoadParams p;
  p.topic = "t";
  auto log = storage::Log::open(dir, p, std::make_shared<const storage::LogConfig>(c));
  const int aborted = fill(*log, bytes);
  const int64_t end = log->log_end_offset().value - 1;
  if (!log->roll(wall_clock_ms())) throw std::runtime_error("roll failed");
  log->close();
  auto file = [&](const char* suffix, int64_t offset = 0) {
    char name[32];
    std::snprintf(name, sizeof name, "%020lld", static_cast<long long>(offset));
    return (dir / (std::string(name) + suffix)).string();
  };
  JsonWriter w;
  w.begin_object()
      .field("log", file(".log"))
      .field("offset_index", file(".index"))
      .field("time_index", file(".timeindex"))
      .field("txn_index", file(".txnindex"))
      .field("snapshot", file(".snapshot", end + 1))
      .field("start", int64_t{0})
      .field("end", end)
      .field("aborted", int64_t{aborted})
      .end_object();
  std::cout << w.text() << std::endl;
  return 0;
}

}  // namespace skiff::tools::rsmcli
