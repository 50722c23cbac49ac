// ProducerIdStore: hands out idempotent-producer ids that are never reused,
// across restarts included. Ids are reserved in blocks: before the first id
// of a block is handed out, the block's end is written durably, so after a
// crash allocation resumes past every id that could have been given out.
//
// File `<first log dir>/skiff-producer-ids` (text, written atomically and
// fsynced, see write_file_durably):
//   version: 0
//   next.block.start: <first id not yet reserved>
//
// Threads: allocate() is thread-safe (one mutex; disk I/O once per block).
#pragma once

#include <cstdint>
#include <filesystem>
#include <mutex>

namespace skiff::storage {

inline constexpr const char* kProducerIdFile = "skiff-producer-ids";

class ProducerIdStore {
 public:
  static constexpr int64_t kBlockSize = 1000;

  // Reads the file (a missing file starts at 0). Throws std::runtime_error on
  // a file that exists but cannot be parsed.
  explicit ProducerIdStore(std::filesystem::path path);

  // The next id, or -1 if the block reservation could not be persisted.
  int64_t allocate();
  // Every id below this may have been handed out (ids >= it never were).
  int64_t high_watermark() const;

 private:
  std::filesystem::path path_;
  mutable std::mutex mu_;
  int64_t next_ = 0;
  int64_t block_end_ = 0;
};

}  // namespace skiff::storage
