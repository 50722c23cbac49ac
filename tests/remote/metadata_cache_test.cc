// The remote log metadata's in-memory state (Kafka's RemoteLogMetadataCache
// semantics): lookups by offset and epoch, gaps, several epochs, re-uploads
// that supersede, deletion, partition delete states, refused transitions.
#include "remote/metadata/metadata_cache.h"

#include <catch2/catch.hpp>

using namespace skiff;
using namespace skiff::remote;

namespace cache_test {

TopicIdPartition tp() {
  return TopicIdPartition{Uuid{{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}}, "t", 0};
}

RemoteLogSegmentMetadata seg(uint8_t n, int64_t start, int64_t end, std::map<int32_t, int64_t> epochs) {
  RemoteLogSegmentMetadata m;
  m.id = RemoteLogSegmentId{tp(), Uuid{{n, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}}};
  m.start_offset = start;
  m.end_offset = end;
  m.segment_leader_epochs = std::move(epochs);
  m.segment_size_in_bytes = 1000;
  return m;
}

SegmentUpdate to(const RemoteLogSegmentMetadata& m, SegmentState s) {
  return SegmentUpdate{m.id, 5, std::nullopt, s, 0};
}

// Adds and finishes the copy.
void copied(MetadataCache& c, const RemoteLogSegmentMetadata& m) {
  REQUIRE_FALSE(c.apply(m));
  REQUIRE_FALSE(c.apply(to(m, SegmentState::kCopyFinished)));
}

std::optional<int64_t> start_for(const MetadataCache& c, int64_t offset) {
  auto m = c.partition(tp())->segment_for(offset);
  return m ? std::optional(m->start_offset) : std::nullopt;
}

}  // namespace cache_test
using namespace cache_test;

TEST_CASE("metadata cache: offsets map to the COPY_SEGMENT_FINISHED segment holding them", "[remote][metadata]") {
  MetadataCache c;
  copied(c, seg(1, 0, 99, {{0, 0}}));
  copied(c, seg(2, 100, 199, {{0, 100}, {1, 150}}));  // epoch 1 starts inside
  copied(c, seg(3, 300, 399, {{2, 300}}));            // a gap: 200..299 is not remote
  const PartitionMetadata& p = *c.partition(tp());
  CHECK(start_for(c, 0) == 0);
  CHECK(start_for(c, 99) == 0);
  CHECK(start_for(c, 100) == 100);
  CHECK(start_for(c, 149) == 100);
  CHECK(start_for(c, 150) == 100);  // by epoch 1
  CHECK(start_for(c, 199) == 100);
  CHECK_FALSE(start_for(c, 200));
  CHECK_FALSE(start_for(c, 299));
  CHECK(start_for(c, 300) == 300);
  CHECK(start_for(c, 399) == 300);
  CHECK_FALSE(start_for(c, 400));
  CHECK_FALSE(start_for(c, -1));
  // By epoch, as Kafka's remoteLogSegmentMetadata(epoch, offset).
  CHECK(p.segment_for(0, 120));
  CHECK_FALSE(p.segment_for(0, 150));  // 150 is epoch 1's
  CHECK(p.segment_for(1, 150));
  CHECK_FALSE(p.segment_for(1, 120));  // below epoch 1's first segment start
  CHECK_FALSE(p.segment_for(7, 120));
  CHECK(p.highest_offset() == 399);
  CHECK(p.highest_offset(0) == 149);
  CHECK(p.highest_offset(1) == 199);
  CHECK_FALSE(p.highest_offset(5));
  CHECK(p.segments().size() == 3);
  CHECK(p.segments(0).size() == 2);
}

TEST_CASE("metadata cache: only COPY_SEGMENT_FINISHED segments serve reads, every state is listed",
          "[remote][metadata]") {
  MetadataCache c;
  auto a = seg(1, 0, 99, {{0, 0}});
  auto b = seg(2, 100, 199, {{0, 100}});
  REQUIRE_FALSE(c.apply(a));
  CHECK_FALSE(start_for(c, 50));  // COPY_SEGMENT_STARTED: not readable
  CHECK_FALSE(c.partition(tp())->highest_offset());
  REQUIRE_FALSE(c.apply(to(a, SegmentState::kCopyFinished)));
  copied(c, b);
  CHECK(start_for(c, 50) == 0);
  REQUIRE_FALSE(c.apply(to(a, SegmentState::kDeleteStarted)));
  CHECK_FALSE(start_for(c, 50));  // being deleted: not readable, still listed
  auto all = c.partition(tp())->segments();
  REQUIRE(all.size() == 2);
  CHECK(all[0].state == SegmentState::kDeleteStarted);
  CHECK(all[1].state == SegmentState::kCopyFinished);
  REQUIRE_FALSE(c.apply(to(a, SegmentState::kDeleteFinished)));
  CHECK(c.partition(tp())->segments().size() == 1);  // gone
  CHECK_FALSE(c.partition(tp())->find(a.id.id));
  CHECK(c.partition(tp())->highest_offset() == 199);
}

TEST_CASE("metadata cache: a re-upload covering earlier segments replaces them", "[remote][metadata]") {
  MetadataCache c;
  copied(c, seg(1, 0, 100, {{0, 0}}));
  copied(c, seg(2, 0, 200, {{0, 0}}));  // Kafka's case 1: a duplicate super-set
  CHECK(c.partition(tp())->segment_for(50)->id.id == seg(2, 0, 0, {}).id.id);
  CHECK(c.partition(tp())->segments().size() == 2);  // the replaced one stays listed for deletion
  CHECK(c.partition(tp())->segments(0).size() == 2);
}

TEST_CASE("metadata cache: invalid changes are refused with a reason and change nothing", "[remote][metadata]") {
  MetadataCache c;
  auto a = seg(1, 0, 99, {{0, 0}});
  SECTION("an update of an unknown segment: not found") {
    auto e = c.apply(to(a, SegmentState::kCopyFinished));
    REQUIRE(e);
    CHECK(e->kind == CacheError::Kind::kNotFound);
    CHECK_THAT(e->message, Catch::Contains("no remote log segment metadata"));
  }
  SECTION("a new segment in another state than COPY_SEGMENT_STARTED") {
    a.state = SegmentState::kCopyFinished;
    auto e = c.apply(a);
    REQUIRE(e);
    CHECK(e->kind == CacheError::Kind::kInvalidArgument);
  }
  SECTION("no epochs, or offsets backwards") {
    CHECK(c.apply(seg(2, 0, 9, {}))->kind == CacheError::Kind::kInvalidArgument);
    CHECK(c.apply(seg(2, 9, 0, {{0, 9}}))->kind == CacheError::Kind::kInvalidArgument);
  }
  SECTION("an update to COPY_SEGMENT_STARTED") {
    REQUIRE_FALSE(c.apply(a));
    CHECK(c.apply(to(a, SegmentState::kCopyStarted))->kind == CacheError::Kind::kInvalidArgument);
  }
  SECTION("backwards and skipping transitions") {
    REQUIRE_FALSE(c.apply(a));
    auto skip = c.apply(to(a, SegmentState::kDeleteFinished));
    REQUIRE(skip);
    CHECK(skip->kind == CacheError::Kind::kInvalidTransition);
    CHECK_THAT(skip->message, Catch::Contains("from COPY_SEGMENT_STARTED to DELETE_SEGMENT_FINISHED"));
    REQUIRE_FALSE(c.apply(to(a, SegmentState::kDeleteStarted)));
    CHECK(c.apply(to(a, SegmentState::kCopyFinished))->kind == CacheError::Kind::kInvalidTransition);
    CHECK(c.apply(a)->kind == CacheError::Kind::kInvalidTransition);  // re-adding a segment being deleted
    CHECK(c.partition(tp())->find(a.id.id)->state == SegmentState::kDeleteStarted);
  }
  SECTION("the same state again is valid (retries)") {
    REQUIRE_FALSE(c.apply(a));
    CHECK_FALSE(c.apply(a));
    CHECK_FALSE(c.apply(to(a, SegmentState::kCopyFinished)));
    CHECK_FALSE(c.apply(to(a, SegmentState::kCopyFinished)));
    CHECK(c.partition(tp())->segments().size() == 1);
  }
  SECTION("a snapshot record does not belong in the topic") {
    CHECK(c.apply(SegmentSnapshot{a})->kind == CacheError::Kind::kInvalidArgument);
  }
}

TEST_CASE("metadata cache: partition delete states, and FINISHED forgets the partition", "[remote][metadata]") {
  MetadataCache c;
  copied(c, seg(1, 0, 99, {{0, 0}}));
  auto del = [&](PartitionDeleteState s) { return c.apply(PartitionDelete{tp(), s, 1, 0}); };
  CHECK(del(PartitionDeleteState::kStarted)->kind == CacheError::Kind::kInvalidTransition);  // MARKED first
  CHECK_FALSE(del(PartitionDeleteState::kMarked));
  CHECK(c.delete_state(tp()) == PartitionDeleteState::kMarked);
  CHECK_FALSE(del(PartitionDeleteState::kMarked));  // again: valid
  CHECK(del(PartitionDeleteState::kFinished)->kind == CacheError::Kind::kInvalidTransition);
  CHECK_FALSE(del(PartitionDeleteState::kStarted));
  CHECK(c.partitions().size() == 1);
  CHECK_FALSE(del(PartitionDeleteState::kFinished));
  CHECK_FALSE(c.delete_state(tp()));
  CHECK_FALSE(c.partition(tp()));
  CHECK(c.partitions().empty());
}
