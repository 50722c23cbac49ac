// The finalized feature levels (api/feature_levels.h): Kafka's update rules,
// durability in the metadata store, and what a level turns on or off as a
// client sees it (ApiVersions, the share-group and consumer-group APIs).
#include "api/feature_levels.h"

#include "common/wall_clock.h"
#include "metadata/metadata_store.h"
#include "protocol/generated/api_versions_request.h"
#include "protocol/generated/api_versions_response.h"
#include "protocol/generated/consumer_group_heartbeat_request.h"
#include "protocol/generated/consumer_group_heartbeat_response.h"
#include "protocol/generated/describe_share_group_offsets_request.h"
#include "protocol/generated/describe_share_group_offsets_response.h"
#include "protocol/generated/share_group_heartbeat_request.h"
#include "protocol/generated/share_group_heartbeat_response.h"
#include "protocol/generated/update_features_request.h"
#include "protocol/generated/update_features_response.h"
#include "tests/api/api_harness.h"

using namespace skiff;
using namespace skiff::protocol;
using api::FeatureLevels;

namespace {

constexpr int16_t kUnsupportedVersion = 35;
const api::Feature kTable[] = {{"group.version", 0, 1, 1}, {"share.version", 0, 2, 2}};

std::optional<std::string> apply(FeatureLevels& f, const std::string& name, int16_t level, int8_t type,
                                 bool validate_only = false) {
  auto r = f.apply({{name, level, type}}, validate_only, 1);
  return r ? std::optional(r->message) : std::nullopt;
}

// The finalized levels ApiVersions v3 answers, by name.
std::map<std::string, int16_t> finalized(test::ApiHarness& h) {
  ApiVersionsRequest req;
  req.client_software_name = "skiff-test";
  req.client_software_version = "1.0";
  std::map<std::string, int16_t> out;
  for (const auto& f : h.call<ApiVersionsResponse>(req, 3).finalized_features) out[f.name] = f.max_version_level;
  return out;
}

int16_t update(test::ApiHarness& h, const std::string& feature, int16_t level, int8_t type) {
  UpdateFeaturesRequest req;
  UpdateFeaturesRequest::FeatureUpdateKey u;
  u.feature = feature;
  u.max_version_level = level;
  u.upgrade_type = type;
  req.feature_updates.push_back(u);
  return h.call<UpdateFeaturesResponse>(req, 1).error_code;
}

int16_t share_heartbeat(test::ApiHarness& h) {
  ShareGroupHeartbeatRequest req;
  req.group_id = "sg";
  req.member_id = "AAAAAAAAAAAAAAAAAAAAAA";
  req.member_epoch = 0;
  req.subscribed_topic_names = std::vector<std::string>{"t"};
  return h.call<ShareGroupHeartbeatResponse>(req, 1).error_code;
}

}  // namespace

TEST_CASE("feature levels: Kafka's update rules, and one refused update refuses the request", "[api][features]") {
  FeatureLevels f(nullptr, kTable);
  CHECK(f.level("share.version") == 2);
  CHECK(f.level("unknown.feature") == 0);
  CHECK(apply(f, "share.version", 1, 1) ==
        "Invalid update version 1 for feature share.version. Can't downgrade the version of this feature without "
        "setting the upgrade type to either safe or unsafe downgrade.");
  const int64_t epoch = f.epoch();
  CHECK(apply(f, "share.version", 1, 2, /*validate_only=*/true) == std::nullopt);
  CHECK(f.level("share.version") == 2);
  CHECK(f.epoch() == epoch);
  std::vector<std::pair<std::string, int16_t>> seen;
  f.on_change([&](std::string_view name, int16_t level) { seen.emplace_back(name, level); });
  CHECK(apply(f, "share.version", 0, 2) == std::nullopt);
  CHECK(f.level("share.version") == 0);
  CHECK(f.epoch() > epoch);
  CHECK(seen == std::vector<std::pair<std::string, int16_t>>{{"share.version", 0}});
  CHECK(apply(f, "share.version", 0, 1) == std::nullopt);  // the same level: nothing changes
  CHECK(seen.size() == 1);
  // Both or neither.
  auto r = f.apply({{"share.version", 2, 1}, {"group.version", 2, 1}}, false, 1);
  REQUIRE(r);
  CHECK(r->message ==
        "Invalid update version 2 for feature group.version. Local controller 1 only supports versions 0-1");
  CHECK(f.level("share.version") == 0);
}

TEST_CASE("feature levels: durable in the metadata store, and an unsupported stored level refuses to start",
          "[api][features]") {
  auto dir = test::make_temp_dir("skiff-features");
  {
    auto store = metadata::MetadataStore::open(dir);
    REQUIRE(store);
    FeatureLevels f(&(*store)->ns(metadata::kFeatureLevels), kTable);
    CHECK(apply(f, "share.version", 1, 2) == std::nullopt);
    CHECK(apply(f, "group.version", 0, 3) == std::nullopt);
  }
  {
    auto store = metadata::MetadataStore::open(dir);
    REQUIRE(store);
    FeatureLevels f(&(*store)->ns(metadata::kFeatureLevels), kTable);
    CHECK(f.level("share.version") == 1);
    CHECK(f.level("group.version") == 0);
  }
  {  // a binary that supports share.version 0 only
    auto store = metadata::MetadataStore::open(dir);
    REQUIRE(store);
    const api::Feature older[] = {{"group.version", 0, 1, 1}, {"share.version", 0, 0, 0}};
    std::string why;
    try {
      FeatureLevels refused(&(*store)->ns(metadata::kFeatureLevels), older);
    } catch (const metadata::Failure& e) {
      why = e.what();
    }
    CHECK(why.find("the finalized level 1 of feature share.version is not supported by this broker") !=
          std::string::npos);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("share.version 0 turns the share-group APIs off, kept across a restart, and 1+ back on",
          "[api][features][share]") {
  test::ApiHarness h;
  CHECK(share_heartbeat(h) != kUnsupportedVersion);
  CHECK(finalized(h).at("share.version") == 2);
  REQUIRE(update(h, "share.version", 0, 2) == 0);
  CHECK(finalized(h).count("share.version") == 0);  // level 0: not finalized, as Kafka leaves it out
  CHECK(share_heartbeat(h) == kUnsupportedVersion);
  DescribeShareGroupOffsetsRequest d;
  d.groups.emplace_back().group_id = "sg";
  auto dr = h.call<DescribeShareGroupOffsetsResponse>(d, 1);
  REQUIRE(dr.groups.size() == 1);
  CHECK(dr.groups[0].error_code == kUnsupportedVersion);
  h.restart();
  CHECK(share_heartbeat(h) == kUnsupportedVersion);
  REQUIRE(update(h, "share.version", 1, 1) == 0);
  CHECK(finalized(h).at("share.version") == 1);
  CHECK(share_heartbeat(h) != kUnsupportedVersion);
}

TEST_CASE("group.version 0 turns KIP-848's consumer group protocol off", "[api][features]") {
  test::ApiHarness h;
  ConsumerGroupHeartbeatRequest req;
  req.group_id = "g";
  req.member_id = "AAAAAAAAAAAAAAAAAAAAAA";
  req.member_epoch = 0;
  req.rebalance_timeout_ms = 30000;
  req.subscribed_topic_names = std::vector<std::string>{"t"};
  CHECK(h.call<ConsumerGroupHeartbeatResponse>(req, 0).error_code != kUnsupportedVersion);
  REQUIRE(update(h, "group.version", 0, 2) == 0);
  CHECK(h.call<ConsumerGroupHeartbeatResponse>(req, 0).error_code == kUnsupportedVersion);
}
