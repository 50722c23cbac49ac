#include "coordinator/txn/producer_id_blocks.h"

#include <stdexcept>
#include <string>

#include "common/file_fields.h"

namespace skiff::txn {

ProducerIdBlocks::ProducerIdBlocks(metadata::Namespace& ns) : ns_(ns) {
  const int64_t v = ns_.load([](const std::vector<std::string>& records) -> int64_t {
    if (records.empty()) return 0;  // nothing stored yet: ids start at 0
    if (records.size() != 1) throw std::runtime_error("more than one record");
    FieldReader in(records[0]);
    const auto start = static_cast<int64_t>(in.uint64());
    if (!in.done()) throw std::runtime_error("bytes after the next block start");
    if (start < 0) throw std::runtime_error("a negative next block start");
    return start;
  });
  next_ = block_end_ = v;
}

int64_t ProducerIdBlocks::allocate() {
  std::lock_guard lk(mu_);
  if (next_ >= block_end_) {
    const int64_t end = next_ + kBlockSize;
    std::string record;
    put_be64_field(record, static_cast<uint64_t>(end));
    if (!ns_.write({record})) return -1;
    block_end_ = end;
  }
  return next_++;
}

int64_t ProducerIdBlocks::high_watermark() const {
  std::lock_guard lk(mu_);
  return next_;
}

}  // namespace skiff::txn
