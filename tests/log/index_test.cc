#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <random>
#include <vector>

#include "log/index_search.h"
#include "log/offset_index.h"
#include "log/time_index.h"
#include "test_util.h"

using namespace skiff::storage;
using skiff::storage::test::TempDir;

TEST_CASE("offset index lookups match a std::map model", "[log][index]") {
  TempDir dir;
  OffsetIndex idx(*FdCache::default_instance(), dir / "00000000000000001000.index", Offset(1000));
  idx.file().open();
  REQUIRE(idx.file().make_appendable(1 << 16));
  std::map<int64_t, uint32_t> model;
  std::mt19937 rng(1);
  int64_t off = 1000;
  uint32_t pos = 0;
  for (int i = 0; i < 2000; ++i) {
    off += 1 + rng() % 50;
    pos += 1 + rng() % 5000;
    REQUIRE(idx.append(Offset(off), pos));
    model[off] = pos;
  }
  CHECK(idx.entries() == 2000);
  for (int i = 0; i < 5000; ++i) {
    int64_t target = 900 + static_cast<int64_t>(rng() % (off - 800));
    auto it = model.upper_bound(target);
    auto got = idx.lookup(Offset(target));
    if (it == model.begin()) {
      CHECK(got.offset == Offset(1000));
      CHECK(got.position == 0);
    } else {
      --it;
      CHECK(got.offset == Offset(it->first));
      CHECK(got.position == it->second);
    }
  }
  // By position.
  for (int i = 0; i < 1000; ++i) {
    uint32_t p = rng() % (pos + 100);
    auto got = idx.lookup_by_position(p);
    CHECK(got.position <= p);
  }
  // Trim, reopen: same answers.
  REQUIRE(idx.file().trim());
  CHECK(std::filesystem::file_size(idx.file().path()) == size_t{2000} * 8);
  OffsetIndex again(*FdCache::default_instance(), idx.file().path(), Offset(1000));
  again.file().open();
  CHECK(again.entries() == 2000);
  CHECK(again.sane(pos + 1));
  CHECK(again.lookup(Offset(off)).offset == Offset(off));
  // Truncation.
  again.truncate_to(Offset(model.begin()->first + 1));
  CHECK(again.entries() == 1);
}

TEST_CASE("time index keeps increasing timestamps and looks up floors", "[log][index]") {
  TempDir dir;
  TimeIndex idx(*FdCache::default_instance(), dir / "00000000000000000000.timeindex", Offset(0));
  idx.file().open();
  REQUIRE(idx.file().make_appendable(size_t{12} * 100));
  std::map<int64_t, int64_t> model;  // ts -> offset
  std::mt19937 rng(2);
  int64_t ts = 1000, off = 0;
  for (int i = 0; i < 200; ++i) {
    off += 1 + rng() % 10;
    int64_t t = ts + static_cast<int64_t>(rng() % 100) - 30;  // sometimes goes back: skipped
    REQUIRE(idx.maybe_append(t, Offset(off)));
    if ((model.empty() || t > model.rbegin()->first) && model.size() + 1 < 100) model[t] = off;
    ts = std::max(ts, t);
  }
  CHECK(idx.entries() == model.size());
  CHECK(idx.full());
  for (int64_t q = 900; q < ts + 50; q += 7) {
    auto it = model.upper_bound(q);
    auto got = idx.lookup(q);
    if (it == model.begin()) {
      CHECK(got.timestamp == -1);
    } else {
      --it;
      CHECK(got.timestamp == it->first);
      CHECK(got.offset == Offset(it->second));
    }
  }
  // The final entry may use the reserved slot.
  REQUIRE(idx.maybe_append(ts + 1000, Offset(off + 1), true));
  CHECK(idx.last_entry().timestamp == ts + 1000);
}

TEST_CASE("first_entry_where is the partition point of a sorted index", "[log][index]") {
  std::mt19937 rng(7);
  for (size_t n = 0; n < 40; ++n) {
    std::vector<int> keys(n);
    for (auto& k : keys) k = static_cast<int>(rng() % 10);
    std::sort(keys.begin(), keys.end());
    for (int target = -1; target <= 10; ++target) {
      const auto expect = std::upper_bound(keys.begin(), keys.end(), target) - keys.begin();
      CHECK(first_entry_where(n, [&](size_t i) { return keys[i] > target; }) == static_cast<size_t>(expect));
    }
  }
}
