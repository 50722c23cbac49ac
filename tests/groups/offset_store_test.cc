// OffsetStore (legacy, read once for the migration to __consumer_offsets):
// replay, torn tails, tombstones and compaction of the file.
#include "coordinator/group/offset_store.h"

#include <fcntl.h>

#include <fstream>

#include "tests/groups/group_fixture.h"

using namespace skiff;
using namespace skiff::test;

namespace {

struct TempFile {
  std::filesystem::path path() const { return dir / "offsets.log"; }
  TempDir dir{"skiff-offset-store"};
};

OffsetAndMetadata at(int64_t offset) {
  OffsetAndMetadata o;
  o.offset = offset;
  o.leader_epoch = 1;
  o.metadata = "m";
  o.commit_timestamp = 123;
  return o;
}

}  // namespace

TEST_CASE("OffsetStore replays offsets, groups and tombstones", "[groups][store]") {
  TempFile tf;
  {
    std::map<std::string, LoadedGroup> loaded;
    OffsetStore s(tf.path(), loaded);
    CHECK(loaded.empty());
    auto seq = s.write_offsets("g", {{{"t", 0}, at(1)}, {{"t", 1}, at(2)}});
    REQUIRE(seq);
    s.write_offsets("g", {{{"t", 0}, at(10)}});
    s.delete_offsets("g", {{"t", 1}});
    s.write_group({.group_id = "g", .protocol_type = "consumer", .generation = 4, .state_timestamp = 777});
    s.write_offsets("gone", {{{"t", 0}, at(5)}});
    s.delete_group("gone");
    REQUIRE(s.flush(*s.write_group({.group_id = "h", .protocol_type = "", .generation = 0, .state_timestamp = 1})));
  }
  std::map<std::string, LoadedGroup> loaded;
  OffsetStore s(tf.path(), loaded);
  REQUIRE(loaded.size() == 2);
  auto& g = loaded.at("g");
  REQUIRE(g.group);
  CHECK(g.group->generation == 4);
  CHECK(g.group->protocol_type == "consumer");
  CHECK(g.group->state_timestamp == 777);
  REQUIRE(g.offsets.size() == 1);
  CHECK(g.offsets.at({"t", 0}).offset == 10);
  CHECK(g.offsets.at({"t", 0}).commit_timestamp == 123);
  CHECK(loaded.count("h") == 1);
}

TEST_CASE("OffsetStore truncates a torn tail and keeps what precedes it", "[groups][store]") {
  TempFile tf;
  uint64_t good_size;
  {
    std::map<std::string, LoadedGroup> loaded;
    OffsetStore s(tf.path(), loaded);
    s.write_offsets("g", {{{"t", 0}, at(1)}});
    good_size = s.file_bytes();
    s.write_offsets("g", {{{"t", 0}, at(2)}});
  }
  // A crash in the middle of the second record.
  std::filesystem::resize_file(tf.path(), good_size + 11);
  {
    std::map<std::string, LoadedGroup> loaded;
    OffsetStore s(tf.path(), loaded);
    CHECK(loaded.at("g").offsets.at({"t", 0}).offset == 1);
    CHECK(std::filesystem::file_size(tf.path()) == good_size);
    s.write_offsets("g", {{{"t", 0}, at(3)}});  // appends after the good prefix
  }
  // A flipped byte: the record fails its CRC.
  {
    std::fstream io(tf.path(), std::ios::in | std::ios::out | std::ios::binary);
    io.seekp(static_cast<std::streamoff>(good_size + 20));
    io.put('\x7f');
  }
  std::map<std::string, LoadedGroup> loaded;
  OffsetStore s(tf.path(), loaded);
  CHECK(loaded.at("g").offsets.at({"t", 0}).offset == 1);
}

TEST_CASE("OffsetStore compaction keeps only live records", "[groups][store]") {
  TempFile tf;
  {
    std::map<std::string, LoadedGroup> loaded;
    OffsetStore s(tf.path(), loaded);
    for (int i = 0; i < 2000; ++i) s.write_offsets("g", {{{"t", i % 4}, at(i)}});
    s.write_offsets("dead", {{{"t", 0}, at(1)}});
    s.delete_group("dead");
    auto before = s.file_bytes();
    REQUIRE(s.compact());
    CHECK(s.file_bytes() < before / 100);
    CHECK(s.file_bytes() == s.live_bytes());
    s.write_offsets("g", {{{"t", 0}, at(9999)}});
  }
  std::map<std::string, LoadedGroup> loaded;
  OffsetStore s(tf.path(), loaded);
  REQUIRE(loaded.size() == 1);
  auto& offsets = loaded.at("g").offsets;
  CHECK(offsets.size() == 4);
  CHECK(offsets.at({"t", 0}).offset == 9999);
  CHECK(offsets.at({"t", 3}).offset == 1999);
}

TEST_CASE("OffsetStore compaction: deleting group \"a\" keeps group a-NUL-b", "[groups][store]") {
  TempFile tf;
  const std::string other("a\0b", 3);
  {
    std::map<std::string, LoadedGroup> loaded;
    OffsetStore s(tf.path(), loaded);
    REQUIRE(s.write_offsets(other, {{{"t", 0}, at(5)}}));
    REQUIRE(s.write_offsets("a", {{{"t", 0}, at(6)}}));
    REQUIRE(s.write_pending(other, {{7, {"t", 1}, PendingOffset{at(8), 0, 1, false}}}));
    REQUIRE(s.delete_group("a"));
    REQUIRE(s.compact());
  }
  std::map<std::string, LoadedGroup> loaded;
  OffsetStore s(tf.path(), loaded);
  REQUIRE(loaded.count(other) == 1);
  CHECK(loaded[other].offsets.at({"t", 0}).offset == 5);
  CHECK(loaded[other].pending.at(7).at({"t", 1}).offset.offset == 8);
  CHECK(loaded.count("a") == 0);
}

TEST_CASE("OffsetStore: a torn marker write leaves the pending offsets for the retried marker",
          "[groups][store][txn]") {
  TempFile tf;
  uintmax_t before_end = 0;
  {
    std::map<std::string, LoadedGroup> loaded;
    OffsetStore s(tf.path(), loaded);
    REQUIRE(s.write_pending("g", {{7, {"t", 0}, PendingOffset{at(8), 0, 1, false}}}));
    before_end = std::filesystem::file_size(tf.path());
    REQUIRE(s.end_txn("g", 7, 0, true, {{{"t", 0}, at(8)}}, {}));
  }
  std::filesystem::resize_file(tf.path(), std::filesystem::file_size(tf.path()) - 3);  // kill -9 mid-write
  std::map<std::string, LoadedGroup> loaded;
  OffsetStore s(tf.path(), loaded);
  CHECK(loaded["g"].pending.at(7).at({"t", 0}).offset.offset == 8);  // no end record: still pending
  CHECK(std::filesystem::file_size(tf.path()) > before_end);         // the whole offset record survived
}
