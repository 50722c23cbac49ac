// Producer ids (coordinator/txn/producer_id_blocks.h, producer_ids.h): never
// handed out twice across restarts, because a block's end is stored before
// its first id goes out; a reservation that cannot be stored hands out
// nothing; a corrupt stored block stops the start.
#include "coordinator/txn/producer_id_blocks.h"

#include <catch2/catch.hpp>
#include <filesystem>

#include "common/file_fields.h"
#include "coordinator/txn/producer_ids.h"
#include "tests/support/metadata_store.h"
#include "tests/support/temp_dir.h"

using namespace skiff;
using namespace skiff::txn;

namespace {

int64_t stored_block_end(metadata::Namespace& ns) {
  auto contents = ns.read();
  REQUIRE(contents);
  REQUIRE(contents->records.size() == 1);
  FieldReader in(contents->records[0]);
  return static_cast<int64_t>(in.uint64());
}

}  // namespace

TEST_CASE("producer ids are never reused across restarts", "[txn][producer]") {
  test::TempDir d;
  int64_t last = -1;
  {
    auto store = test::open_metadata(d.path());
    auto& ns = store->ns(metadata::kProducerIds);
    ProducerIdBlocks ids(ns);
    CHECK(ids.allocate() == 0);
    CHECK(stored_block_end(ns) == ProducerIdBlocks::kBlockSize);  // stored before id 0 went out
    last = ids.allocate();
    CHECK(ids.high_watermark() == 2);
  }  // a crash here loses the rest of the block, never an id
  auto store = test::open_metadata(d.path());
  ProducerIdBlocks ids(store->ns(metadata::kProducerIds));
  CHECK(ids.high_watermark() == ProducerIdBlocks::kBlockSize);
  const int64_t next = ids.allocate();
  CHECK(next > last);
  CHECK(next == ProducerIdBlocks::kBlockSize);
  CHECK(stored_block_end(store->ns(metadata::kProducerIds)) == 2 * ProducerIdBlocks::kBlockSize);
}

TEST_CASE("a block that cannot be stored hands out no id", "[txn][producer]") {
  test::TempDir d;
  auto store = test::open_metadata(d.path());
  ProducerIds ids(store->ns(metadata::kProducerIds));
  std::filesystem::remove_all(store->dir());
  auto r = ids.init(-1, -1);
  CHECK(r.error == ErrorCode::kKafkaStorageError);
  CHECK(r.producer_id == -1);
  std::filesystem::create_directory(store->dir());
  r = ids.init(-1, -1);
  CHECK(r.error == ErrorCode::kNone);
  CHECK(r.producer_id == 0);
}

TEST_CASE("a corrupt stored block stops the start, naming the file", "[txn][producer]") {
  test::TempDir d;
  auto store = test::open_metadata(d.path());
  auto& ns = store->ns(metadata::kProducerIds);
  REQUIRE(ns.write({"short"}));
  CHECK_THROWS_WITH(ProducerIdBlocks(ns), Catch::Contains(ns.file().string() + " is corrupt: truncated"));
  std::string negative;
  put_be64_field(negative, static_cast<uint64_t>(-5));
  REQUIRE(ns.write({negative}));
  CHECK_THROWS_AS(ProducerIdBlocks(ns), metadata::Failure);
}
