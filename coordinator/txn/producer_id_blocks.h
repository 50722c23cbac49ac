// ProducerIdBlocks: hands out idempotent-producer ids that are never reused,
// across restarts included. Ids are reserved in blocks: before the first id
// of a block is handed out, the block's end is stored durably in the
// "producer-ids" namespace of the metadata store (metadata/metadata_store.h),
// so after a crash allocation resumes past every id that could have been
// given out. One record, version 1:
//   next_block_start int64 (big-endian)   the first id not yet reserved
//
// Threads: allocate() is thread-safe (one mutex; disk I/O once per block).
#pragma once

#include <cstdint>
#include <mutex>

#include "metadata/metadata_store.h"

namespace skiff::txn {

class ProducerIdBlocks {
 public:
  static constexpr int64_t kBlockSize = 1000;

  // Reads the stored block end (none yet: ids start at 0). Throws
  // metadata::Failure naming the file when it cannot be read or parsed.
  explicit ProducerIdBlocks(metadata::Namespace& ns);

  // The next id, or -1 if the block reservation could not be stored (the
  // store logs why).
  int64_t allocate();
  // Every id below this may have been handed out (ids >= it never were).
  int64_t high_watermark() const;

 private:
  metadata::Namespace& ns_;
  mutable std::mutex mu_;
  int64_t next_ = 0;
  int64_t block_end_ = 0;
};

}  // namespace skiff::txn
