// Helpers shared by the log tests: temp dirs, batch construction, reading
// back what the Log serves.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "log/batch_builder.h"
#include "log/log.h"
#include "log/record_batch.h"
#include "tests/support/temp_dir.h"

namespace skiff::storage::test {

struct TempDir : skiff::test::TempDir {
  TempDir() : skiff::test::TempDir("skiff-log-test") {}
};

inline std::shared_ptr<const LogConfig> config_with(std::function<void(LogConfig&)> f = nullptr) {
  LogConfig c;
  c.message_timestamp_after_max_ms = LogConfig::kMaxLong;
  if (f) f(c);
  return std::make_shared<const LogConfig>(c);
}

inline std::shared_ptr<Log> open_log(const std::filesystem::path& dir, std::shared_ptr<const LogConfig> cfg,
                                     bool clean = false, int64_t recovery_point = 0) {
  LogLoadParams p;
  p.topic = "t";
  p.partition = 0;
  p.clean_shutdown = clean;
  p.recovery_point = recovery_point;
  return Log::open(dir, p, std::move(cfg));
}

// Appends a temporary batch (tests only; the broker appends request buffers).
inline Result<Appended> append_tmp(Log& log, std::vector<uint8_t> b, int32_t epoch = 0, int64_t now_ms = -1) {
  return now_ms < 0 ? log.append(b, epoch) : log.append(b, epoch, now_ms);
}

// Reads every batch from `from` to the end through Log::read.
inline std::vector<std::vector<uint8_t>> read_all_batches(const Log& log, int64_t from = -1,
                                                          size_t max_bytes = 1 << 20) {
  std::vector<std::vector<uint8_t>> out;
  int64_t o = from < 0 ? log.log_start_offset().value : from;
  while (o < log.log_end_offset().value) {
    auto r = log.read(Offset(o), max_bytes);
    if (!r || r->slice.empty()) break;
    auto bytes = r->slice.read_all();
    BatchIterator it(bytes);
    RecordBatchView v;
    while (it.next(v)) {
      out.emplace_back(v.bytes().begin(), v.bytes().end());
      o = v.next_offset();
    }
  }
  return out;
}

// A transactional batch of `records` records (key "k", value "v").
inline std::vector<uint8_t> txn_batch(int64_t pid, int16_t epoch, int32_t seq, int records = 2) {
  BatchBuilder b;
  b.producer(pid, epoch, seq).transactional(true);
  for (int i = 0; i < records; ++i) b.add("k", "v", wall_clock_ms());
  return b.build();
}

// A COMMIT/ABORT marker appended at leader epoch 0; `tv` the transaction version.
inline Result<Appended> marker(Log& log, int64_t pid, int16_t epoch, bool commit, int32_t coord_epoch = 0,
                               int16_t tv = 1) {
  return log.append_marker(pid, epoch, commit, coord_epoch, tv, 0, wall_clock_ms());
}

}  // namespace skiff::storage::test
