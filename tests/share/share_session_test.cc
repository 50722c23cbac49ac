// ShareSessionCache: epochs 0 / n / -1, incremental add and forget, the
// session limit, Kafka's errors, disconnects.
#include "share/share_session.h"

#include <catch2/catch.hpp>

namespace skiff::share {
namespace {

Uuid topic(uint8_t b) {
  Uuid u;
  u.bytes[15] = b;
  return u;
}
TopicIdPartition tp(uint8_t t, int32_t p) { return {topic(t), p}; }

TEST_CASE("epoch 0 opens a session at epoch 1, n continues it, a wrong epoch is refused") {
  ShareSessionCache cache(10);
  auto r = cache.new_context("g", "m", 0, {tp(1, 0), tp(1, 1)}, {}, false, "c1");
  REQUIRE(r.error.ok());
  CHECK_FALSE(r.context.subsequent);
  CHECK(r.context.partitions.size() == 2);
  CHECK(cache.epoch({"g", "m"}) == 1);
  CHECK(cache.total_partitions() == 2);
  CHECK(cache.num_members("g") == 1);
  r = cache.new_context("g", "m", 2, {}, {}, false, "c1");
  CHECK(r.error.code == ErrorCode::kInvalidShareSessionEpoch);
  CHECK(r.error.message == "The share session epoch is invalid.");
  r = cache.new_context("g", "m", 1, {tp(2, 0)}, {tp(1, 0)}, true, "c1");
  REQUIRE(r.error.ok());
  CHECK(r.context.subsequent);
  CHECK(r.context.partitions == std::vector<TopicIdPartition>{tp(1, 1), tp(2, 0)});
  CHECK(cache.epoch({"g", "m"}) == 2);
  CHECK(cache.total_partitions() == 2);
  // The same request again (a retry) is now a stale epoch.
  CHECK(cache.new_context("g", "m", 1, {}, {}, false, "c1").error.code == ErrorCode::kInvalidShareSessionEpoch);
}

TEST_CASE("an unknown session and acknowledgements in an opening fetch are errors") {
  ShareSessionCache cache(10);
  auto r = cache.new_context("g", "m", 3, {}, {}, false, "c1");
  CHECK(r.error.code == ErrorCode::kShareSessionNotFound);
  CHECK(r.error.message == "The share session was not found.");
  CHECK(cache.new_context("g", "m", -1, {}, {}, false, "c1").error.code == ErrorCode::kShareSessionNotFound);
  r = cache.new_context("g", "m", 0, {tp(1, 0)}, {}, true, "c1");
  CHECK(r.error.code == ErrorCode::kInvalidRequest);
  CHECK(cache.size() == 0);
}

TEST_CASE("epoch -1 is the final fetch of an existing session, reopening replaces the session") {
  ShareSessionCache cache(10);
  REQUIRE(cache.new_context("g", "m", 0, {tp(1, 0)}, {}, false, "c1").error.ok());
  auto r = cache.new_context("g", "m", -1, {}, {}, true, "c1");
  REQUIRE(r.error.ok());
  CHECK(r.context.final);
  REQUIRE(cache.new_context("g", "m", 0, {tp(3, 0)}, {}, false, "c2").error.ok());
  CHECK(cache.size() == 1);
  CHECK(cache.partitions({"g", "m"}).value() == std::vector<TopicIdPartition>{tp(3, 0)});
  CHECK(cache.num_members("g") == 1);
  auto removed = cache.remove({"g", "m"});
  REQUIRE(removed);
  CHECK(removed->size() == 1);
  CHECK_FALSE(cache.remove({"g", "m"}));
  CHECK(cache.total_partitions() == 0);
}

TEST_CASE("the session limit (group.share.max.share.sessions)") {
  ShareSessionCache cache(2);
  REQUIRE(cache.new_context("g", "a", 0, {}, {}, false, "c1").error.ok());
  REQUIRE(cache.new_context("g", "b", 0, {}, {}, false, "c2").error.ok());
  auto r = cache.new_context("g", "c", 0, {}, {}, false, "c3");
  CHECK(r.error.code == ErrorCode::kShareSessionLimitReached);
  CHECK(r.error.message == "The limit of share sessions has been reached.");
  // A member reopening its own session is not over the limit.
  CHECK(cache.new_context("g", "a", 0, {}, {}, false, "c1").error.ok());
}

TEST_CASE("ShareAcknowledge's session check") {
  ShareSessionCache cache(10);
  CHECK(cache.acknowledge_session_update("g", "m", 1).code == ErrorCode::kShareSessionNotFound);
  REQUIRE(cache.new_context("g", "m", 0, {tp(1, 0)}, {}, false, "c1").error.ok());
  CHECK(cache.acknowledge_session_update("g", "m", 0).code == ErrorCode::kInvalidShareSessionEpoch);
  CHECK(cache.acknowledge_session_update("g", "m", 5).code == ErrorCode::kInvalidShareSessionEpoch);
  CHECK(cache.acknowledge_session_update("g", "m", 1).ok());
  CHECK(cache.epoch({"g", "m"}) == 2);
  CHECK(cache.acknowledge_session_update("g", "m", -1).ok());
  CHECK(cache.epoch({"g", "m"}) == 2);
}

TEST_CASE("epochs wrap from INT32_MAX to 1, the final epoch stays final") {
  CHECK(next_share_session_epoch(0) == 1);
  CHECK(next_share_session_epoch(2147483647) == 1);
  CHECK(next_share_session_epoch(-1) == -1);
}

TEST_CASE("a closed connection removes its session, the group empties") {
  ShareSessionCache cache(10);
  REQUIRE(cache.new_context("g", "a", 0, {tp(1, 0)}, {}, false, "c1").error.ok());
  REQUIRE(cache.new_context("g", "b", 0, {tp(1, 1)}, {}, false, "c2").error.ok());
  auto d = cache.on_disconnect("c1");
  REQUIRE(d);
  CHECK(d->member_left);
  CHECK(d->key.member_id == "a");
  CHECK(d->partitions == std::vector<TopicIdPartition>{tp(1, 0)});
  CHECK_FALSE(d->group_empty);
  // b closed its session first: the disconnect finds it stale, the group empty.
  REQUIRE(cache.remove({"g", "b"}));
  d = cache.on_disconnect("c2");
  REQUIRE(d);
  CHECK_FALSE(d->member_left);
  CHECK(d->group_empty);
  CHECK_FALSE(cache.on_disconnect("c3"));
}

TEST_CASE("incremental responses carry partitions with records or errors, and the one after an error") {
  ShareSessionCache cache(10);
  REQUIRE(cache.new_context("g", "m", 0, {tp(1, 0), tp(1, 1)}, {}, false, "c1").error.ok());
  ShareSessionKey k{"g", "m"};
  CHECK_FALSE(cache.must_respond(k, tp(1, 0), false, false));
  CHECK(cache.must_respond(k, tp(1, 0), true, false));
  CHECK(cache.must_respond(k, tp(1, 1), false, true));
  CHECK(cache.must_respond(k, tp(1, 1), false, false));  // the error cleared: say so once
  CHECK_FALSE(cache.must_respond(k, tp(1, 1), false, false));
  // A partition added by an incremental request is answered once.
  REQUIRE(cache.new_context("g", "m", 1, {tp(2, 0)}, {}, false, "c1").error.ok());
  CHECK(cache.must_respond(k, tp(2, 0), false, false));
  CHECK_FALSE(cache.must_respond(k, tp(2, 0), false, false));
}

}  // namespace
}  // namespace skiff::share
