// Binary search over the entries of an index file (OffsetIndex, TimeIndex):
// the one copy of the loop both indexes use for lookups and truncation.
// Entries are decoded one at a time from the mapped or pread file, so this
// searches positions [0, n) rather than a container.
// Pure function; thread rules are those of the index it reads.
#pragma once

#include <cstddef>

namespace skiff::storage {

// The first i in [0, n) for which `after(i)` holds, or n if none; `after`
// must be false then true along the entries (sorted keys).
template <class After>
size_t first_entry_where(size_t n, After after) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (after(mid)) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

}  // namespace skiff::storage
