// KIP-546's DescribeClientQuotas and AlterClientQuotas in-process: the
// answers' shapes as Kafka 4.4's (one entry per distinct entity, error
// messages, null entries on a bad filter), the quotas kept across a
// restart, and CLUSTER_AUTHORIZATION_FAILED without DESCRIBE_CONFIGS /
// ALTER_CONFIGS on the cluster.
#include "common/wall_clock.h"
#include "log/batch_builder.h"
#include "protocol/generated/alter_client_quotas_request.h"
#include "protocol/generated/alter_client_quotas_response.h"
#include "protocol/generated/describe_client_quotas_request.h"
#include "protocol/generated/describe_client_quotas_response.h"
#include "protocol/generated/fetch_request.h"
#include "protocol/generated/fetch_response.h"
#include "tests/api/api_harness.h"

using namespace skiff;
using namespace skiff::protocol;

namespace {

using Entry = AlterClientQuotasRequest::EntryData;

Entry entry(const std::vector<std::pair<std::string, std::optional<std::string>>>& entity,
            const std::vector<std::tuple<std::string, double, bool>>& ops) {
  Entry e;
  for (const auto& [type, name] : entity) e.entity.push_back({type, name, {}});
  for (const auto& [key, value, removal] : ops) e.ops.push_back({key, value, removal, {}});
  return e;
}

AlterClientQuotasResponse alter(test::ApiHarness& h, std::vector<Entry> entries, int16_t version = 1,
                                bool validate_only = false) {
  AlterClientQuotasRequest req;
  req.entries = std::move(entries);
  req.validate_only = validate_only;
  return h.call<AlterClientQuotasResponse>(req, version);
}

DescribeClientQuotasResponse describe(test::ApiHarness& h,
                                      std::vector<DescribeClientQuotasRequest::ComponentData> components,
                                      bool strict = false, int16_t version = 1) {
  DescribeClientQuotasRequest req;
  req.components = std::move(components);
  req.strict = strict;
  return h.call<DescribeClientQuotasResponse>(req, version);
}

DescribeClientQuotasRequest::ComponentData component(std::string type, int8_t match_type,
                                                     std::optional<std::string> match) {
  return {std::move(type), match_type, std::move(match), {}};
}

}  // namespace

TEST_CASE("AlterClientQuotas then DescribeClientQuotas, kept across a restart", "[api][quota]") {
  test::ApiHarness h;
  auto described = describe(h, {});
  REQUIRE(described.entries);
  CHECK(described.entries->empty());
  for (int16_t version : {0, 1}) {
    auto resp =
        alter(h,
              {entry({{"client-id", "c1"}}, {{"producer_byte_rate", 1024, false}, {"consumer_byte_rate", 2048, false}}),
               entry({{"user", std::nullopt}}, {{"request_percentage", 12.5, false}})},
              version);
    REQUIRE(resp.entries.size() == 2);
    for (const auto& e : resp.entries) {
      CHECK(e.error_code == 0);
      CHECK_FALSE(e.error_message);
    }
    CHECK(resp.entries[0].entity.at(0).entity_type == "client-id");
    CHECK(resp.entries[0].entity.at(0).entity_name == "c1");
    CHECK_FALSE(resp.entries[1].entity.at(0).entity_name);
  }
  h.restart();
  for (int16_t version : {0, 1}) {
    auto d = describe(h, {component("client-id", 0, "c1")}, true, version);
    CHECK(d.error_code == 0);
    REQUIRE(d.entries);
    REQUIRE(d.entries->size() == 1);
    const auto& values = d.entries->at(0).values;
    REQUIRE(values.size() == 2);
    CHECK(values[0].key == "consumer_byte_rate");
    CHECK(values[0].value == 2048);
    CHECK(values[1].key == "producer_byte_rate");
    CHECK(values[1].value == 1024);
  }
  auto d = describe(h, {component("user", 1, std::nullopt)}, true);
  REQUIRE(d.entries);
  REQUIRE(d.entries->size() == 1);
  CHECK_FALSE(d.entries->at(0).entity.at(0).entity_name);
  // Removing the last key removes the entity.
  auto removed = alter(h, {entry({{"user", std::nullopt}}, {{"request_percentage", 0, true}})});
  CHECK(removed.entries.at(0).error_code == 0);
  CHECK(describe(h, {component("user", 2, std::nullopt)}).entries->empty());
}

TEST_CASE("AlterClientQuotas: Kafka's errors per entity, one answer per distinct entity", "[api][quota]") {
  test::ApiHarness h;
  auto resp = alter(h, {entry({{"user", "u"}}, {{"producer_byte_rate", 1.5, false}}),
                        entry({{"ip", "nope"}}, {{"connection_creation_rate", 1, false}}),
                        entry({{"client-id", "c"}}, {{"producer_byte_rate", 1, false}}),
                        entry({{"client-id", "c"}}, {{"consumer_byte_rate", 1, false}})});
  REQUIRE(resp.entries.size() == 3);
  CHECK(resp.entries[0].error_code == 42);  // INVALID_REQUEST
  CHECK(resp.entries[0].error_message == "producer_byte_rate cannot be a fractional value.");
  CHECK(resp.entries[1].error_code == 42);
  CHECK(resp.entries[1].error_message == "nope is not a valid IP or resolvable host.");
  // Kafka's map of results keeps the later entry's: the first was applied, the answer says ignored.
  CHECK(resp.entries[2].error_code == 42);
  CHECK(resp.entries[2].error_message == "Ignoring duplicate entity ClientQuotaEntity(entries={client-id=c})");
  auto d = describe(h, {component("client-id", 0, "c")});
  REQUIRE(d.entries->size() == 1);
  REQUIRE(d.entries->at(0).values.size() == 1);
  CHECK(d.entries->at(0).values[0].key == "producer_byte_rate");
  // validate_only: checked, not applied.
  auto checked = alter(h, {entry({{"user", "v"}}, {{"consumer_byte_rate", 10, false}})}, 1, true);
  CHECK(checked.entries.at(0).error_code == 0);
  CHECK(describe(h, {component("user", 0, "v")}).entries->empty());
}

TEST_CASE("DescribeClientQuotas: a bad filter answers the error and null entries", "[api][quota]") {
  test::ApiHarness h;
  auto d = describe(h, {component("ip", 2, std::nullopt), component("user", 2, std::nullopt)});
  CHECK(d.error_code == 42);
  CHECK(d.error_message ==
        "Invalid entity filter component combination. IP filter component should not be used with user or clientId "
        "filter component.");
  CHECK_FALSE(d.entries);
  auto unknown = describe(h, {component("group", 2, std::nullopt)});
  CHECK(unknown.error_code == 35);  // UNSUPPORTED_VERSION
  CHECK(unknown.error_message == "Unsupported entity type group");
}

TEST_CASE("client quota APIs need DESCRIBE_CONFIGS / ALTER_CONFIGS on the cluster", "[api][quota][acl]") {
  test::ApiHarness h(
      {"authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer", "super.users=User:admin"});
  h.set_principal("User:mallory");
  auto resp = alter(h, {entry({{"user", "u"}, {"user", "w"}}, {{"producer_byte_rate", 1, false}}),
                        entry({{"client-id", "c"}}, {{"producer_byte_rate", 1, false}})});
  REQUIRE(resp.entries.size() == 2);
  for (const auto& e : resp.entries) {
    CHECK(e.error_code == 31);  // CLUSTER_AUTHORIZATION_FAILED
    CHECK(e.error_message == "Cluster authorization failed.");
  }
  CHECK(resp.entries[0].entity.size() == 2);  // the entity as sent
  auto d = describe(h, {});
  CHECK(d.error_code == 31);
  CHECK_FALSE(d.entries);
  h.set_principal("User:admin");
  CHECK(alter(h, {entry({{"user", "u"}}, {{"producer_byte_rate", 1, false}})}).entries.at(0).error_code == 0);
  CHECK(describe(h, {}).entries->size() == 1);
}

TEST_CASE("a fetch over its request_percentage quota is answered empty, as Kafka's", "[api][quota]") {
  test::ApiHarness h;
  REQUIRE(outcome(h.logs().create_topic("t", 1)) == storage::LogErrc::kNone);
  auto batch = storage::make_test_batch(10, 100, wall_clock_ms());
  REQUIRE(h.logs().get_log("t", 0)->append(batch).has_value());
  FetchRequest req;
  req.max_bytes = 1 << 20;
  auto& t = req.topics.emplace_back();
  t.topic = "t";
  auto& p = t.partitions.emplace_back();
  p.partition_max_bytes = 1 << 20;

  auto unthrottled = h.call<FetchResponse>(req, 12);
  CHECK(unthrottled.throttle_time_ms == 0);
  REQUIRE(unthrottled.responses.size() == 1);
  CHECK(unthrottled.responses[0].partitions[0].records.size() == batch.size());

  // The harness's client id; a quota no handler time fits in.
  CHECK(
      alter(h, {entry({{"client-id", "harness"}}, {{"request_percentage", 0.000001, false}})}).entries[0].error_code ==
      0);
  FetchResponse throttled;
  for (int i = 0; i < 5 && throttled.throttle_time_ms == 0; ++i) throttled = h.call<FetchResponse>(req, 12);
  CHECK(throttled.throttle_time_ms > 0);
  CHECK(throttled.responses.empty());  // no data rides along with the throttle
}
