#include <catch2/catch.hpp>

#include "log/log_config.h"

using namespace skiff::storage;

TEST_CASE("topic overrides over broker defaults", "[log][config]") {
  LogConfig broker;
  broker.retention_ms = 1000;
  auto r = LogConfig::with_overrides(
      broker,
      {{"segment.bytes", "1048576"}, {"message.timestamp.type", "LogAppendTime"}, {"cleanup.policy", "delete"}});
  REQUIRE(r);
  auto c = *r;
  CHECK(c.segment_bytes == 1048576);
  CHECK(c.retention_ms == 1000);
  CHECK(c.message_timestamp_type == TimestampType::kLogAppendTime);
  CHECK(c.overrides.size() == 3);
  CHECK(c.effective_values().at("segment.bytes") == "1048576");
}

TEST_CASE("config errors name the key", "[log][config]") {
  LogConfig broker;
  auto bad = [&](const std::map<std::string, std::string>& m, const std::string& key) {
    auto r = LogConfig::with_overrides(broker, m);
    REQUIRE(!r);
    CHECK(r.error().code == LogErrc::kInvalidConfig);
    CHECK_THAT(r.error().message, Catch::Contains(key));
  };
  bad({{"segment.bytes", "abc"}}, "segment.bytes");
  bad({{"segment.bytes", "1"}}, "segment.bytes");
  bad({{"segment.bytes", "65536"}}, "segment.bytes");  // Kafka: at least 1 MiB
  bad({{"retention.ms", "-5"}}, "retention.ms");
  bad({{"flush.messages", "0"}}, "flush.messages");
  bad({{"message.timestamp.type", "Bogus"}}, "message.timestamp.type");
  bad({{"no.such.key", "1"}}, "no.such.key");
}

TEST_CASE("broker properties map to topic defaults", "[log][config]") {
  auto r = LogConfig::from_broker_properties({{"log.segment.bytes", "1048576"},
                                              {"log.retention.hours", "1"},
                                              {"log.flush.interval.messages", "1"},
                                              {"num.network.threads", "3"}});
  REQUIRE(r);
  auto c = *r;
  CHECK(c.segment_bytes == 1048576);
  CHECK(c.retention_ms == 3600000);
  CHECK(c.flush_messages == 1);
  auto e = LogConfig::from_broker_properties({{"log.retention.ms", "x"}});
  REQUIRE(!e);
  CHECK_THAT(e.error().message, Catch::Contains("log.retention.ms"));
}
