#include "coordinator/txn/producer_id_blocks.h"

#include <stdexcept>
#include <string>

#include "common/file_fields.h"

namespace skiff::txn {

ProducerIdBlocks::ProducerIdBlocks(metadata::Namespace& ns) : ns_(ns) {
  auto contents = metadata::value_or_throw(ns_.read());
  if (contents.records.empty()) return;
  int64_t v = -1;
  try {
    if (contents.records.size() != 1) throw std::runtime_error("more than one record");
    FieldReader in(contents.records[0]);
    v = static_cast<int64_t>(in.uint64());
    if (!in.done()) throw std::runtime_error("bytes after the next block start");
  } catch (const std::runtime_error& e) {
    throw metadata::Failure(ns_.corrupt(e.what()));
  }
  if (v < 0) throw metadata::Failure(ns_.corrupt("a negative next block start"));
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
