// KIP-848's GROUP config resource (type 32) through the protocol:
// IncrementalAlterConfigs and AlterConfigs set a group's
// consumer.session.timeout.ms, refuse Kafka's other group keys and values
// outside the broker's bounds with INVALID_CONFIG and Kafka's message, and
// DescribeConfigs describes any group id (DYNAMIC_GROUP_CONFIG / DEFAULT_CONFIG
// with the group.consumer.* synonym), as Kafka 4.4 does.
#include <catch2/catch.hpp>

#include "protocol/generated/alter_configs_request.h"
#include "protocol/generated/alter_configs_response.h"
#include "protocol/generated/describe_configs_request.h"
#include "protocol/generated/describe_configs_response.h"
#include "protocol/generated/incremental_alter_configs_request.h"
#include "protocol/generated/incremental_alter_configs_response.h"
#include "tests/api/api_harness.h"
#include "tests/api/handler_calls.h"

using namespace skiff;
using namespace skiff::protocol;

namespace {

constexpr int8_t kGroup = 32;

IncrementalAlterConfigsResponse::AlterConfigsResourceResponse set(test::ApiHarness& h, const std::string& group,
                                                                  const std::string& key, const std::string& value,
                                                                  int8_t op = 0) {
  IncrementalAlterConfigsRequest req;
  IncrementalAlterConfigsRequest::AlterConfigsResource res;
  res.resource_type = kGroup;
  res.resource_name = group;
  IncrementalAlterConfigsRequest::AlterableConfig c;
  c.name = key;
  c.config_operation = op;
  c.value = value;
  res.configs.push_back(c);
  req.resources.push_back(res);
  return h.call<IncrementalAlterConfigsResponse>(req, 1).responses.at(0);
}

const test::ConfigEntry& entry(const DescribeConfigsResponse::DescribeConfigsResult& r, const std::string& key) {
  const auto* e = test::find_config(r.configs, key);
  INFO("no " << key);
  REQUIRE(e);
  return *e;
}

}  // namespace

TEST_CASE("GROUP configs: set, described, refused as Kafka 4.4", "[api][admin][config][kip848]") {
  test::ApiHarness h;
  auto none = test::describe_config(h, kGroup, "no-such-group");  // any group id is described, with the broker's values
  REQUIRE(none.error_code == 0);
  // Kafka 4.4's 27 group keys less its 6 internal ones, not set here: consumer.* (3), share.* (9),
  // streams.* (7), errors.deadletterqueue.* (2).
  REQUIRE(none.configs.size() == 21);
  CHECK(entry(none, "streams.assignor.name").value == "sticky");
  CHECK(entry(none, "streams.rack.aware.assignment.tags").config_type == 7);  // LIST
  const auto& dflt = entry(none, "consumer.session.timeout.ms");
  CHECK(dflt.value == "45000");
  CHECK(dflt.config_source == 5);  // DEFAULT_CONFIG
  REQUIRE(dflt.synonyms.size() == 1);
  CHECK(dflt.synonyms[0].name == "group.consumer.session.timeout.ms");

  CHECK(set(h, "g", "consumer.session.timeout.ms", "50000").error_code == 0);
  auto g = test::describe_config(h, kGroup, "g");
  const auto& set_entry = entry(g, "consumer.session.timeout.ms");
  CHECK(set_entry.value == "50000");
  CHECK(set_entry.config_source == 8);  // DYNAMIC_GROUP_CONFIG
  CHECK(set_entry.synonyms.size() == 2);
  CHECK(entry(g, "consumer.heartbeat.interval.ms").value == "5000");

  auto low = set(h, "g", "consumer.session.timeout.ms", "1000");
  CHECK(low.error_code == 40);  // INVALID_CONFIG
  CHECK(low.error_message == "consumer.session.timeout.ms must be in the range 45000 to 60000 inclusive.");
  auto streams = set(h, "g", "streams.assignor.name", "balanced");
  CHECK(streams.error_code == 40);
  CHECK(streams.error_message ==
        "streams.assignor.name 'balanced' is not a registered task assignor. Registered assignors are: [sticky].");
  // Kafka's internal keys are described once set (a LONG here).
  CHECK(!test::find_config(test::describe_config(h, kGroup, "g").configs, "streams.acceptable.recovery.lag"));
  CHECK(set(h, "g", "streams.acceptable.recovery.lag", "500").error_code == 0);
  const auto lag = entry(test::describe_config(h, kGroup, "g"), "streams.acceptable.recovery.lag");
  CHECK(lag.value == "500");
  CHECK(lag.config_type == 5);  // LONG
  CHECK(set(h, "g", "streams.acceptable.recovery.lag", "", 1).error_code == 0);
  // KIP-932's share keys: Kafka's defaults (no broker synonym for share.auto.offset.reset) and bounds.
  const auto& reset = entry(none, "share.auto.offset.reset");
  CHECK(reset.value == "latest");
  CHECK(reset.synonyms.empty());
  CHECK(entry(none, "share.record.lock.duration.ms").value == "30000");
  CHECK(entry(none, "share.record.lock.duration.ms").synonyms[0].name == "group.share.record.lock.duration.ms");
  CHECK(set(h, "g", "share.delivery.count.limit", "99").error_message ==
        "share.delivery.count.limit must be in the range 2 to 10 inclusive.");
  CHECK(set(h, "g", "bogus", "1").error_message == "Unknown group config name: bogus");
  // The refusals changed nothing.
  CHECK(entry(test::describe_config(h, kGroup, "g"), "consumer.session.timeout.ms").value == "50000");

  CHECK(set(h, "g", "consumer.session.timeout.ms", "", 1).error_code == 0);  // DELETE
  CHECK(entry(test::describe_config(h, kGroup, "g"), "consumer.session.timeout.ms").config_source == 5);

  AlterConfigsRequest alter;  // the legacy API replaces the whole set
  AlterConfigsRequest::AlterConfigsResource res;
  res.resource_type = kGroup;
  res.resource_name = "g";
  AlterConfigsRequest::AlterableConfig c;
  c.name = "consumer.heartbeat.interval.ms";
  c.value = "6000";
  res.configs.push_back(c);
  alter.resources.push_back(res);
  CHECK(h.call<AlterConfigsResponse>(alter, 2).responses.at(0).error_code == 0);
  CHECK(entry(test::describe_config(h, kGroup, "g"), "consumer.heartbeat.interval.ms").value == "6000");
}
