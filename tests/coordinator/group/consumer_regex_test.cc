// KIP-848's regular-expression subscriptions (SubscribedTopicRegex) and the
// group's metadata hash on the GroupCoordinator: a regex is matched whole
// against every topic name; an invalid one is refused with Kafka's error; a
// topic created later that matches joins the assignment at the next
// heartbeat, a deleted one leaves it, added partitions are assigned; the
// resolution is cached (one listing of the topics per change of the topic
// set); the resolutions and the metadata hash survive a restart without
// bumping the group epoch.
#include "coordinator/group/consumer_group_log.h"
#include "tests/coordinator/group/consumer_group_support.h"

using namespace skiff;
using namespace skiff::test;

namespace {

const Uuid kFoo2{{1, 3}};
const Uuid kBar{{1, 4}};
const Uuid kLater{{1, 5}};

GroupConfig no_min_interval() {
  auto c = GroupFixture::test_config();
  c.consumer_regex_refresh_min_interval_ms = 0;
  return c;
}

ConsumerHeartbeatResult join_regex(GroupCoordinator& c, Members& m, const std::string& member, const std::string& re) {
  auto p = m.base(member, 0);
  p.rebalance_timeout_ms = 10000;
  p.subscribed_regex = re;
  p.owned = consumer::Assignment{};
  return c.consumer_heartbeat(p);
}

void add_foo2_and_bar(Topics& t) {
  t.set("foo-2", kFoo2, 2);
  t.set("bar", kBar, 1);
}

}  // namespace

TEST_CASE("regex subscription: the whole topic name must match, and only matching topics are assigned",
          "[groups][kip848][regex]") {
  GroupFixture f(no_min_interval());
  Members m(f.c());
  add_foo2_and_bar(m.topics);
  auto a = join_regex(f.c(), m, "a", "foo.*");
  REQUIRE(a.error == ErrorCode::kNone);
  CHECK(a.member_epoch == 1);
  consumer::Assignment want{{kFoo, {0, 1, 2, 3}}, {kFoo2, {0, 1}}};
  CHECK(a.assignment == want);
  auto d = f.c().describe_consumer_group("g");
  REQUIRE(d.members.size() == 1);
  CHECK(d.members[0].subscribed_regex == "foo.*");
  CHECK(d.topic_names.size() == 2);

  auto b = join_regex(f.c(), m, "b", "fo");  // a prefix is not a match (Matcher.matches())
  REQUIRE(b.error == ErrorCode::kNone);
  CHECK(b.assignment == consumer::Assignment{});

  // Internal topics are not left out: Kafka 4.4 assigns __consumer_offsets to
  // SubscriptionPattern("__consumer_offsets|zz-.*") too (checked against it).
  const Uuid offsets{{9, 9}};
  m.topics.set("__consumer_offsets", offsets, 1);
  auto c = join_regex(f.c(), m, "c", "__consumer_offsets");
  REQUIRE(c.error == ErrorCode::kNone);
  CHECK(f.c().describe_consumer_group("g").topic_names.contains(offsets));
}

TEST_CASE("regex subscription: an invalid regex is refused with INVALID_REGULAR_EXPRESSION and Kafka's message",
          "[groups][kip848][regex]") {
  GroupFixture f(no_min_interval());
  Members m(f.c());
  auto r = join_regex(f.c(), m, "a", "foo[");
  CHECK(r.error == ErrorCode::kInvalidRegularExpression);
  CHECK(r.message == "SubscribedTopicRegex `foo[` is not a valid regular expression: missing closing ].");
  CHECK(f.c().describe_consumer_group("g").members.empty());  // nothing joined
  CHECK(join_regex(f.c(), m, "a", "(?<name").error == ErrorCode::kInvalidRegularExpression);
  // A member that changes to an invalid regex keeps the one it had.
  REQUIRE(join_regex(f.c(), m, "a", "foo").error == ErrorCode::kNone);
  auto p = m.base("a", 1);
  p.subscribed_regex = "*foo";
  auto bad = f.c().consumer_heartbeat(p);
  CHECK(bad.error == ErrorCode::kInvalidRegularExpression);
  CHECK(bad.message ==
        "SubscribedTopicRegex `*foo` is not a valid regular expression: "
        "missing argument to repetition operator.");
  CHECK(f.c().describe_consumer_group("g").members.at(0).subscribed_regex == "foo");
}

TEST_CASE("regex subscription: a topic created later joins the assignment, a deleted one and new partitions show",
          "[groups][kip848][regex]") {
  GroupFixture f(no_min_interval());
  Members m(f.c());
  auto a = join_regex(f.c(), m, "a", "foo.*");
  REQUIRE(a.assignment == parts({0, 1, 2, 3}));
  const int listed = m.topics.listings;
  for (int i = 0; i < 5; ++i) REQUIRE(m.beat("a", 1, a.assignment).member_epoch == 1);
  CHECK(m.topics.listings == listed);  // cached: no new listing while the topic set stays

  m.topics.set("bar", kBar, 1);  // does not match: a new listing, no new epoch
  CHECK(m.beat("a", 1, a.assignment).member_epoch == 1);
  CHECK(m.topics.listings == listed + 1);

  m.topics.set("foo-later", kLater, 2);  // the client does nothing but heartbeat
  auto b = m.beat("a", 1, a.assignment);
  CHECK(b.member_epoch == 2);
  consumer::Assignment with_later{{kFoo, {0, 1, 2, 3}}, {kLater, {0, 1}}};
  CHECK(b.assignment == with_later);

  m.topics.set("foo-later", kLater, 3);  // CreatePartitions
  auto c = m.beat("a", 2, b.assignment);
  CHECK(c.member_epoch == 3);
  CHECK(c.assignment == consumer::Assignment{{kFoo, {0, 1, 2, 3}}, {kLater, {0, 1, 2}}});

  m.topics.erase("foo-later");  // deleted: it leaves the assignment (revoked, then the new epoch)
  auto d = m.beat("a", 3, c.assignment);
  CHECK(d.assignment == parts({0, 1, 2, 3}));
  CHECK(m.beat("a", 3, d.assignment).member_epoch == 4);
  CHECK(f.c().describe_consumer_group("g").topic_names.size() == 1);
}

TEST_CASE("regex subscription: the re-resolution waits for the minimum interval after a change of the topic set",
          "[groups][kip848][regex]") {
  auto config = GroupFixture::test_config();
  config.consumer_regex_refresh_min_interval_ms = 300;
  GroupFixture f(config);
  Members m(f.c());
  auto a = join_regex(f.c(), m, "a", "foo.*");
  m.topics.set("foo-later", kLater, 1);
  CHECK(m.beat("a", 1, a.assignment).member_epoch == 1);  // too soon after the join's resolution
  std::this_thread::sleep_for(std::chrono::milliseconds(350));
  auto b = m.beat("a", 1, a.assignment);
  CHECK(b.member_epoch == 2);
  CHECK(b.assignment == consumer::Assignment{{kFoo, {0, 1, 2, 3}}, {kLater, {0}}});
}

TEST_CASE("consumer group: a restart keeps the metadata hash and the regex resolutions, so the epoch stays",
          "[groups][kip848][regex][durability]") {
  GroupFixture f(no_min_interval());
  consumer::Assignment names_parts, regex_parts;
  {
    Members m(f.c());
    add_foo2_and_bar(m.topics);
    auto a = m.join("a");  // by name: foo
    auto b = join_regex(f.c(), m, "b", "foo-.*|bar");
    REQUIRE(b.error == ErrorCode::kNone);
    REQUIRE(b.assignment);
    names_parts = *a.assignment;
    regex_parts = *b.assignment;
    REQUIRE(m.beat("b", 2, regex_parts).member_epoch == 2);
    REQUIRE(m.beat("a", 1, names_parts).member_epoch == 2);
    CHECK(regex_parts == consumer::Assignment{{kFoo2, {0, 1}}, {kBar, {0}}});
  }
  f.restart();
  Members m(f.c());
  add_foo2_and_bar(m.topics);
  auto d = f.c().describe_consumer_group("g");
  REQUIRE(d.members.size() == 2);
  CHECK(d.members[1].subscribed_regex == "foo-.*|bar");
  CHECK(m.beat("a", 2, names_parts).member_epoch == 2);  // same topics, same hash: no new epoch
  CHECK(m.beat("b", 2, regex_parts).member_epoch == 2);
  CHECK(f.c().describe_consumer_group("g").group_epoch == 2);

  m.topics.set("foo-later", kLater, 1);  // after the restart, a new match still comes in
  auto b = m.beat("b", 2, regex_parts);
  CHECK(b.member_epoch == 3);
  CHECK(b.assignment == consumer::Assignment{{kFoo2, {0, 1}}, {kBar, {0}}, {kLater, {0}}});
}

TEST_CASE("consumer group records: the metadata hash and a regex resolution round-trip", "[groups][kip848][regex]") {
  using namespace skiff::group;
  ConsumerGroupRecord r;
  r.type = kConsumerRegexType;
  r.group_id = "g";
  r.regex = "foo.*";
  r.resolved.topics = {"foo", "foo-2"};
  r.resolved.version = 7;
  r.resolved.timestamp_ms = 1234;
  auto key = encode_consumer_key(r);
  auto value = encode_consumer_value(r);
  REQUIRE(value);
  protocol::ByteReader kr(std::span<const uint8_t>(key).subspan(2));
  auto back = decode_consumer_record(kConsumerRegexType, kr, std::span<const uint8_t>(*value));
  CHECK(back.group_id == "g");
  CHECK(back.regex == "foo.*");
  CHECK(back.resolved.topics == r.resolved.topics);
  CHECK(back.resolved.timestamp_ms == 1234);
  CHECK(back.resolved.version == kStaleTopicsVersion);
  CHECK(is_consumer_record_type(kConsumerRegexType));

  ConsumerGroupRecord meta;
  meta.group_id = "g";
  meta.epoch = 5;
  meta.metadata_hash = -42;
  auto mk = encode_consumer_key(meta);
  auto mv = encode_consumer_value(meta);
  protocol::ByteReader mkr(std::span<const uint8_t>(mk).subspan(2));
  auto mback = decode_consumer_record(kConsumerGroupMetadataType, mkr, std::span<const uint8_t>(*mv));
  CHECK(mback.epoch == 5);
  CHECK(mback.metadata_hash == -42);
}

TEST_CASE("consumer group: the metadata hash is stable and moves with an id, a name or a partition count",
          "[groups][kip848]") {
  using group::topics_metadata_hash;
  std::map<std::string, consumer::TopicMetadata> t{{"foo", {kFoo, "foo", 4}}, {"bar", {kBar, "bar", 1}}};
  const auto h = topics_metadata_hash(t);
  // Pinned (computed independently from the byte stream documented in
  // consumer_group.cc): a change of the algorithm would bump every loaded
  // group's epoch once after an upgrade.
  CHECK(h == 3092618318402816736LL);
  CHECK(topics_metadata_hash({}) == 0);
  CHECK(topics_metadata_hash(t) == h);
  auto grown = t;
  grown["foo"].partitions = 5;
  CHECK(topics_metadata_hash(grown) != h);
  auto recreated = t;
  recreated["foo"].id = kLater;
  CHECK(topics_metadata_hash(recreated) != h);
  t.erase("bar");
  CHECK(topics_metadata_hash(t) != h);
}
