#include "log/time_index.h"

#include <cerrno>

#include "common/byte_order.h"
#include "log/index_search.h"

namespace skiff::storage {

TimestampOffset TimeIndex::peek(size_t i) const {
  uint8_t p[kEntrySize];
  file_.peek(i, p);
  return {static_cast<int64_t>(load_be64(p)), base_ + load_be32(p + 8)};
}

TimestampOffset TimeIndex::entry(size_t i) const {
  uint8_t p[kEntrySize];
  file_.entry(i, p);
  return {static_cast<int64_t>(load_be64(p)), base_ + load_be32(p + 8)};
}

TimestampOffset TimeIndex::last_entry() const {
  size_t n = entries();
  return n == 0 ? TimestampOffset{-1, base_} : entry(n - 1);
}

TimestampOffset TimeIndex::lookup(int64_t target) const {
  const size_t after = first_entry_where(entries(), [&](size_t i) { return entry(i).timestamp > target; });
  return after == 0 ? TimestampOffset{-1, base_} : entry(after - 1);
}

Result<void> TimeIndex::maybe_append(int64_t timestamp, Offset offset, bool skip_full_check) {
  size_t n = entries();
  if (n > 0) {
    auto last = entry(n - 1);
    if (timestamp <= last.timestamp || offset < last.offset) return {};
  }
  if (!skip_full_check && n + 1 >= file_.max_entries()) return {};  // keep the last slot for the final entry
  uint8_t buf[kEntrySize];
  store_be64(buf, static_cast<uint64_t>(timestamp));
  store_be32(buf + 8, static_cast<uint32_t>(offset.value - base_.value));
  return file_.append(buf);
}

void TimeIndex::truncate_to(Offset offset) {
  file_.truncate_entries(first_entry_where(entries(), [&](size_t i) { return entry(i).offset >= offset; }));
}

bool TimeIndex::sane(Offset max_offset) const {
  size_t n = entries();
  if (n == 0) return true;
  auto first = peek(0);
  auto last = peek(n - 1);
  if (last.offset < base_ || last.offset > max_offset) return false;
  if (n > 1 && (last.timestamp <= first.timestamp || last.offset < first.offset)) return false;
  return true;
}

}  // namespace skiff::storage
