#include "log/offset_index.h"

#include "common/byte_order.h"
#include "log/index_search.h"

namespace skiff::storage {

OffsetPosition OffsetIndex::peek(size_t i) const {
  uint8_t p[kEntrySize];
  file_.peek(i, p);
  return {base_ + load_be32(p), load_be32(p + 4)};
}

OffsetPosition OffsetIndex::entry(size_t i) const {
  uint8_t p[kEntrySize];
  file_.entry(i, p);
  return {base_ + load_be32(p), load_be32(p + 4)};
}

OffsetPosition OffsetIndex::lookup(Offset target) const {
  const size_t after = first_entry_where(entries(), [&](size_t i) { return entry(i).offset > target; });
  return after == 0 ? OffsetPosition{base_, 0} : entry(after - 1);
}

OffsetPosition OffsetIndex::lookup_by_position(uint32_t pos) const {
  const size_t after = first_entry_where(entries(), [&](size_t i) { return entry(i).position > pos; });
  return after == 0 ? OffsetPosition{base_, 0} : entry(after - 1);
}

Result<void> OffsetIndex::append(Offset offset, uint32_t position) {
  size_t n = entries();
  if (n > 0) {
    auto last = entry(n - 1);
    if (offset <= last.offset || position <= last.position) return {};  // keep strictly increasing
  }
  uint8_t buf[kEntrySize];
  store_be32(buf, static_cast<uint32_t>(offset.value - base_.value));
  store_be32(buf + 4, position);
  return file_.append(buf);
}

void OffsetIndex::truncate_to(Offset offset) {
  file_.truncate_entries(first_entry_where(entries(), [&](size_t i) { return entry(i).offset >= offset; }));
}

bool OffsetIndex::sane(uint64_t log_size) const {
  // Cheap, like Kafka's sanityCheck: whole entries, last entry plausible.
  // A preallocated file left by a crash shows up as a zero last entry.
  size_t n = entries();
  if (n == 0) return true;
  auto first = peek(0);
  auto last = peek(n - 1);
  if (last.position >= log_size) return false;
  if (n > 1 && (last.offset <= first.offset || last.position <= first.position)) return false;
  return true;
}

}  // namespace skiff::storage
