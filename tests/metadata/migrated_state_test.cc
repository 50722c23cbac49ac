// After the one-time migration of the legacy files in tests/metadata/fixtures
// (written by the writers before the metadata store; README.md there lists
// what they hold), every owner reads back exactly that state: ACLs, SCRAM
// credentials, client quotas, client-metrics subscriptions, group configs,
// dynamic broker configs and the producer-id block.
#include <catch2/catch.hpp>

#include "api/quota/client_quota_store.h"
#include "api/telemetry/client_metrics_subscriptions.h"
#include "config/config_loader.h"
#include "coordinator/group/group_dynamic_config.h"
#include "coordinator/txn/producer_id_blocks.h"
#include "metadata/legacy_migration.h"
#include "security/acl/acl_store.h"
#include "security/sasl/scram_store.h"
#include "server/dynamic_config_wiring.h"
#include "tests/metadata/fixtures.h"
#include "tests/support/temp_dir.h"

using namespace skiff;
namespace fs = std::filesystem;

namespace {

std::unique_ptr<metadata::MetadataStore> migrated(const fs::path& dir) {
  test::copy_fixtures(dir);
  auto store = metadata::open_metadata_store(dir);
  REQUIRE(store);
  for (const auto& def : metadata::kNamespaces)
    if (!def.legacy_file.empty()) REQUIRE_FALSE(fs::exists(dir / std::string(def.legacy_file)));
  return std::move(*store);
}

}  // namespace

TEST_CASE("migrated ACLs", "[metadata][migration]") {
  test::TempDir d;
  auto store = migrated(d.path());
  using namespace acl;
  const std::vector<Acl> want = {{ResourceType::kTopic, "orders", PatternType::kLiteral, "User:alice", "*",
                                  AclOperation::kRead, Permission::kAllow},
                                 {ResourceType::kGroup, "team-", PatternType::kPrefixed, "User:bob", "10.0.0.7",
                                  AclOperation::kDescribe, Permission::kDeny},
                                 {ResourceType::kCluster, "kafka-cluster", PatternType::kLiteral, "User:admin", "*",
                                  AclOperation::kAlter, Permission::kAllow}};
  CHECK(AclStore(store->ns(metadata::kAcls)).load() == want);
}

TEST_CASE("migrated SCRAM credentials", "[metadata][migration]") {
  test::TempDir d;
  auto store = migrated(d.path());
  using namespace sasl;
  ScramCredentialStore scram(&store->ns(metadata::kScramCredentials));
  scram.load();
  CHECK(scram.lookup("alice", ScramMechanism::kSha256) ==
        make_credential(ScramMechanism::kSha256, "alice-secret", 4096, "salt-of-alice"));
  CHECK(scram.lookup("admin", ScramMechanism::kSha512) ==
        make_credential(ScramMechanism::kSha512, "admin-secret", 8192, "salt-of-admin"));
  CHECK(scram.describe().size() == 2);
}

TEST_CASE("migrated client quotas", "[metadata][migration]") {
  test::TempDir d;
  auto store = migrated(d.path());
  api::quota::ClientQuotaStore quotas(&store->ns(metadata::kClientQuotas));
  CHECK(quotas.describe({}, false).entries.size() == 5);
  CHECK(quotas.resolve("producer_byte_rate", "alice", "other")->value == 1048576);
  CHECK(quotas.resolve("consumer_byte_rate", "alice", "app")->value == 2097152);
  CHECK(quotas.resolve("request_percentage", "alice", "app")->value == 12.5);
  CHECK(quotas.resolve("producer_byte_rate", "", "anyone")->value == 4096);
  CHECK(quotas.resolve_ip("10.0.0.9") == 30);
  CHECK(quotas.resolve_ip("10.0.0.10") == 100);
}

TEST_CASE("migrated client-metrics subscriptions", "[metadata][migration]") {
  test::TempDir d;
  auto store = migrated(d.path());
  api::telemetry::SubscriptionStore subs(&store->ns(metadata::kClientMetrics));
  CHECK(subs.names() == std::vector<std::string>{"all-producers", "everything"});
  CHECK(*subs.configs("all-producers") == api::telemetry::ConfigMap{{"interval.ms", "60000"},
                                                                    {"match", "client_software_name=apache-kafka-java"},
                                                                    {"metrics", "org.apache.kafka.producer."}});
  CHECK(*subs.configs("everything") == api::telemetry::ConfigMap{{"metrics", "*"}});
}

TEST_CASE("migrated group configs", "[metadata][migration]") {
  test::TempDir d;
  auto store = migrated(d.path());
  group::GroupDynamicConfigs groups(&store->ns(metadata::kGroupConfigs));
  CHECK(groups.group_ids() == std::vector<std::string>{"odd\tname%", "payments"});
  CHECK(groups.get("payments") == group::GroupDynamicConfigs::Values{{"consumer.heartbeat.interval.ms", "6000"},
                                                                     {"consumer.session.timeout.ms", "50000"}});
  CHECK(groups.int_value("odd\tname%", "consumer.session.timeout.ms") == 48000);
}

TEST_CASE("migrated dynamic broker configs", "[metadata][migration]") {
  test::TempDir d;
  auto store = migrated(d.path());
  auto config = config::load_config({std::nullopt, {}, {"log.dirs=" + d.path().string()}});
  auto dynamic = server::load_dynamic_config(config, store->ns(metadata::kDynamicBrokerConfig));
  auto v = dynamic->values();
  CHECK(v.broker == std::map<std::string, std::string>{{"log.retention.ms", "3600000"}, {"max.connections", "500"}});
  CHECK(v.cluster == std::map<std::string, std::string>{{"log.segment.bytes", "2097152"}});
  CHECK(dynamic->current()->log_retention_ms == 3600000);
  CHECK(dynamic->current()->log_segment_bytes == 2097152);
}

TEST_CASE("the migrated producer-id block: no id handed out before is handed out again", "[metadata][migration]") {
  test::TempDir d;
  auto store = migrated(d.path());
  txn::ProducerIdBlocks ids(store->ns(metadata::kProducerIds));
  CHECK(ids.high_watermark() == 2000);
  CHECK(ids.allocate() == 2000);
}
