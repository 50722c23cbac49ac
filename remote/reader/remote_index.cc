#include "remote/reader/remote_index.h"

#include <algorithm>

#include "common/byte_order.h"

namespace skiff::remote {

namespace {

constexpr size_t kOffsetEntry = 8;
constexpr size_t kTimeEntry = 12;
constexpr uint64_t kOverheadBytes = 128;  // the object, its vector headers, the cache's slot

const uint8_t* bytes_of(std::string_view s) { return reinterpret_cast<const uint8_t*>(s.data()); }

bool all_zero(const uint8_t* p, size_t n) {
  return std::all_of(p, p + n, [](uint8_t b) { return b == 0; });
}

// Entries from `i` on that are not zero filler: bytes the index dropped.
size_t count_dropped(std::string_view s, size_t i, size_t entry) {
  size_t n = 0;
  for (; (i + 1) * entry <= s.size(); ++i)
    if (!all_zero(bytes_of(s) + i * entry, entry)) ++n;
  return n;
}

}  // namespace

std::shared_ptr<const RemoteIndex> RemoteIndex::decode(IndexType type, int64_t base_offset, int64_t end_offset,
                                                       std::optional<std::string_view> bytes) {
  auto x = std::make_shared<RemoteIndex>();
  x->type_ = type;
  x->base_ = base_offset;
  if (!bytes) return x;
  if (type == IndexType::kOffset) x->decode_offsets(*bytes, end_offset);
  if (type == IndexType::kTimestamp) x->decode_times(*bytes, end_offset);
  if (type == IndexType::kTransaction) x->decode_txns(*bytes);
  return x;
}

void RemoteIndex::decode_offsets(std::string_view s, int64_t end_offset) {
  const uint8_t* p = bytes_of(s);
  size_t i = 0;
  for (; (i + 1) * kOffsetEntry <= s.size(); ++i) {
    const auto rel = static_cast<int32_t>(load_be32(p + i * kOffsetEntry));
    const auto pos = static_cast<int32_t>(load_be32(p + i * kOffsetEntry + 4));
    const int64_t off = base_ + rel;
    if (rel < 0 || pos < 0 || off > end_offset) break;
    if (!offsets_.empty() && (off <= offsets_.back().offset || static_cast<uint32_t>(pos) <= offsets_.back().position))
      break;
    offsets_.push_back({off, static_cast<uint32_t>(pos)});
  }
  dropped_ = count_dropped(s, i, kOffsetEntry);
}

void RemoteIndex::decode_times(std::string_view s, int64_t end_offset) {
  const uint8_t* p = bytes_of(s);
  size_t i = 0;
  for (; (i + 1) * kTimeEntry <= s.size(); ++i) {
    const auto ts = static_cast<int64_t>(load_be64(p + i * kTimeEntry));
    const auto rel = static_cast<int32_t>(load_be32(p + i * kTimeEntry + 8));
    const int64_t off = base_ + rel;
    if (rel < 0 || off > end_offset) break;
    if (!times_.empty() && (ts <= times_.back().timestamp || off < times_.back().offset)) break;
    times_.push_back({ts, off});
  }
  dropped_ = count_dropped(s, i, kTimeEntry);
}

void RemoteIndex::decode_txns(std::string_view s) {
  const uint8_t* p = bytes_of(s);
  for (size_t i = 0; (i + 1) * storage::kAbortedTxnSize <= s.size(); ++i) {
    storage::AbortedTxn t;
    if (!storage::decode_aborted_txn(p + i * storage::kAbortedTxnSize, t)) {
      corrupt_ = true;
      return;
    }
    txns_.push_back(t);
  }
}

std::optional<RemoteOffsetEntry> RemoteIndex::lookup_offset(int64_t offset) const {
  auto it = std::upper_bound(offsets_.begin(), offsets_.end(), offset,
                             [](int64_t o, const RemoteOffsetEntry& e) { return o < e.offset; });
  if (it == offsets_.begin()) return std::nullopt;
  return *std::prev(it);
}

int64_t RemoteIndex::lookup_timestamp(int64_t timestamp) const {
  auto it = std::upper_bound(times_.begin(), times_.end(), timestamp,
                             [](int64_t t, const RemoteTimeEntry& e) { return t < e.timestamp; });
  if (it == times_.begin()) return base_;
  return std::prev(it)->offset;
}

uint64_t RemoteIndex::cost_bytes() const {
  return kOverheadBytes + offsets_.size() * sizeof(RemoteOffsetEntry) + times_.size() * sizeof(RemoteTimeEntry) +
         txns_.size() * sizeof(storage::AbortedTxn);
}

}  // namespace skiff::remote
