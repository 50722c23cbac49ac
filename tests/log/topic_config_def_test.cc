// The topic config table (log/topic_config_def.h) against Kafka 4.4: every
// key of Kafka's LogConfig is a row with Kafka's type, default and broker
// synonym (kafka_4_4_topic_configs.txt, printed by KafkaTopicConfigs.java
// from Kafka's jar), and values are checked with Kafka's messages (taken from
// a real Kafka 4.4 answering CreateTopics).
#include "log/topic_config_def.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "log/log_config.h"

using namespace skiff::storage;

namespace {

std::vector<std::vector<std::string>> kafka_rows() {
  std::ifstream in(std::string(SKIFF_SOURCE_DIR) + "/tests/log/kafka_4_4_topic_configs.txt");
  std::vector<std::vector<std::string>> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cols;
    std::stringstream ss(line);
    std::string col;
    while (std::getline(ss, col, '\t')) cols.push_back(col);
    rows.push_back(cols);
  }
  return rows;
}

const char* type_name(TopicConfigType t) {
  switch (t) {
    case TopicConfigType::kBoolean:
      return "BOOLEAN";
    case TopicConfigType::kString:
      return "STRING";
    case TopicConfigType::kInt:
      return "INT";
    case TopicConfigType::kLong:
      return "LONG";
    case TopicConfigType::kDouble:
      return "DOUBLE";
    case TopicConfigType::kList:
      return "LIST";
  }
  return "?";
}

std::string message(const Result<void>& r) { return r ? "OK" : r.error().message; }

std::string check(const std::string& key, const std::string& value) {
  return message(validate_topic_configs({{key, value}}));
}

}  // namespace

TEST_CASE("topic config table: exactly Kafka 4.4's keys, types, defaults and synonyms", "[log][config]") {
  auto rows = kafka_rows();
  REQUIRE(rows.size() == 38);  // 37 public keys + internal.segment.bytes
  CHECK(rows.size() == topic_config_defs().size());
  for (const auto& r : rows) {
    REQUIRE(r.size() >= 6);
    INFO(r[0]);
    const auto* d = find_topic_config(r[0]);
    REQUIRE(d);
    CHECK(type_name(d->type) == r[1]);
    CHECK(std::string(d->kafka_default.value_or("<none>")) == r[2]);
    CHECK(d->broker_synonym == r[4]);
    CHECK(d->internal == (r[5] == "true"));
  }
  CHECK(find_topic_config("message.downconversion.enable") == nullptr);
  CHECK(find_topic_config("message.timestamp.difference.max.ms") == nullptr);
}

TEST_CASE("topic config values are checked as Kafka 4.4 checks them", "[log][config]") {
  CHECK(check("segment.bytes", "65536") ==
        "Invalid value 65536 for configuration segment.bytes: Value must be at least 1048576");
  CHECK(check("segment.bytes", "abc") == "Invalid value abc for configuration segment.bytes: Not a number of type INT");
  CHECK(check("segment.bytes", "3000000000") ==
        "Invalid value 3000000000 for configuration segment.bytes: Not a number of type INT");
  CHECK(check("segment.bytes", " 2000000 ") == "OK");
  CHECK(check("segment.ms", "+5") == "OK");
  CHECK(check("retention.ms", "1e3") == "Invalid value 1e3 for configuration retention.ms: Not a number of type LONG");
  CHECK(check("retention.ms", "-2") == "Invalid value -2 for configuration retention.ms: Value must be at least -1");
  CHECK(check("retention.bytes", "-5") == "OK");
  CHECK(check("foo.bar", "1") == "Unknown topic config name: foo.bar");
  CHECK(check("message.downconversion.enable", "true") == "Unknown topic config name: message.downconversion.enable");
  CHECK(check("message.timestamp.difference.max.ms", "1") ==
        "Unknown topic config name: message.timestamp.difference.max.ms");
  CHECK(check("cleanup.policy", "bogus") ==
        "Invalid value bogus for configuration cleanup.policy: String must be one of: compact, delete");
  CHECK(check("cleanup.policy", "Compact") ==
        "Invalid value Compact for configuration cleanup.policy: String must be one of: compact, delete");
  CHECK(check("cleanup.policy", "delete , compact") == "OK");
  CHECK(check("cleanup.policy", "") == "OK");
  CHECK(check("cleanup.policy", "compact,") == "Configuration 'cleanup.policy' values must not be empty.");
  CHECK(check("compression.type", "ZSTD") ==
        "Invalid value ZSTD for configuration compression.type: String must be one of: uncompressed, zstd, lz4, "
        "snappy, gzip, producer");
  CHECK(check("compression.type", " gzip") == "OK");
  CHECK(check("preallocate", "yes") ==
        "Invalid value yes for configuration preallocate: Expected value to be either true or false");
  CHECK(check("preallocate", "TRUE") == "OK");
  CHECK(check("min.cleanable.dirty.ratio", "1.5") ==
        "Invalid value 1.5 for configuration min.cleanable.dirty.ratio: Value must be no more than 1");
  CHECK(check("min.cleanable.dirty.ratio", "abc") ==
        "Invalid value abc for configuration min.cleanable.dirty.ratio: Not a number of type DOUBLE");
  CHECK(check("min.cleanable.dirty.ratio", "1e-1") == "OK");
  CHECK(check("compression.gzip.level", "0") ==
        "Invalid value 0 for configuration compression.gzip.level: Value must be between 1 and 9 or equal to -1");
  CHECK(check("compression.zstd.level", "-131073") ==
        "Invalid value -131073 for configuration compression.zstd.level: Value must be at least -131072");
  CHECK(check("leader.replication.throttled.replicas", "*") == "OK");
  CHECK(check("leader.replication.throttled.replicas", "0:1, 1:2") == "OK");
  CHECK(check("follower.replication.throttled.replicas", "0:1,*") ==
        "Invalid value [0:1, *] for configuration follower.replication.throttled.replicas: "
        "follower.replication.throttled.replicas must be the literal '*' or a list of replicas in the following "
        "format: [partitionId]:[brokerId],[partitionId]:[brokerId],...");
  CHECK(check("message.timestamp.type", "createtime") ==
        "Invalid value createtime for configuration message.timestamp.type: String must be one of: CreateTime, "
        "LogAppendTime");
  CHECK(check("max.decompressed.message.bytes", "0") ==
        "Invalid value 0 for configuration max.decompressed.message.bytes: Value must be at least 1");
  CHECK(check("errors.deadletterqueue.group.enable", "true") == "OK");
  CHECK(check("internal.segment.bytes", "1000") == "OK");
  CHECK(check("remote.storage.enable", "true") ==
        "Tiered Storage functionality is disabled in the broker. Topic cannot be configured with remote log storage.");
  CHECK(message(validate_topic_configs({{"min.compaction.lag.ms", "10"}, {"max.compaction.lag.ms", "5"}})) ==
        "conflict topic config setting min.compaction.lag.ms (10) > max.compaction.lag.ms (5)");
}

TEST_CASE("topic configs the log acts on, and the ones it only keeps", "[log][config]") {
  LogConfig broker;
  auto r = LogConfig::with_overrides(broker, {{"internal.segment.bytes", "4096"},
                                              {"cleanup.policy", "compact"},
                                              {"remote.copy.lag.ms", "5"},
                                              {"segment.bytes", "2000000"}});
  REQUIRE(r);
  auto c = *r;
  CHECK(c.segment_bytes == 2000000);
  CHECK(c.segment_size() == 4096);  // Kafka's internal key wins
  CHECK_FALSE(c.retention_deletes);
  auto values = c.effective_values();
  CHECK(values.at("remote.copy.lag.ms") == "5");
  CHECK(values.at("max.decompressed.message.bytes") == "2147483639");
  for (const auto& d : topic_config_defs())
    if (!d.internal) CHECK(values.count(std::string(d.name)) == 1);
  CHECK(values.count("internal.segment.bytes") == 1);  // set here

  std::map<std::string, std::string> dropped;
  auto stored = LogConfig::with_stored_overrides(
      broker, {{"message.downconversion.enable", "true"}, {"segment.bytes", "65536"}, {"retention.ms", "5"}}, &dropped);
  CHECK(dropped.size() == 2);
  CHECK(stored.retention_ms == 5);
  CHECK(stored.segment_bytes == broker.segment_bytes);
  CHECK(stored.overrides == std::map<std::string, std::string>{{"retention.ms", "5"}});
}
