// Kafka 4.4's dynamic broker configs (DynamicConfig.Broker: its
// DynamicBrokerConfig.ALL_DYNAMIC_CONFIGS and the broker quota keys), as
// AlterConfigs / IncrementalAlterConfigs on the BROKER resource accept them.
// tests/config/kafka-4.4-dynamic-broker-configs.tsv is the list recorded
// from Kafka's jars (tools/record_kafka_dynamic_broker_configs.sh); the
// config tests compare what Skiff accepts with it.
//
// Keys Skiff applies live are marked dynamic where they are defined. The rest
// are accepted, validated by type and range as Kafka's ConfigDef validates
// them (Kafka's messages: "Not a number of type LONG", "Value must be at
// least 1", ...), stored and described, with no effect (no_effect): the
// Kafka features Skiff lacks (GSSAPI/Kerberos, replica fetchers, Java plugin
// classes), and keys Skiff reads only at startup. Tiered storage's dynamic
// keys (remote.*, log.local.retention.*, log.remote.copy.lag.*) are rows of
// config/tiered_storage_keys.cc.
#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <set>
#include <stdexcept>

#include "config/config_def.h"
#include "config/string_util.h"

namespace skiff::config {
namespace {

constexpr std::string_view kNoEffectDoc =
    " Skiff accepts, stores and describes it as a dynamic broker config; it has no effect.";

ConfigKeyDef kafka_stored(std::string name, ConfigType type, std::string def, std::string doc,
                          std::function<void(const std::string&)> check, std::string allowed) {
  ConfigKeyDef d{std::move(name),
                 type,
                 std::move(def),
                 std::move(doc) + std::string(kNoEffectDoc),
                 [check = std::move(check)](BrokerConfig&, const std::string& v) { check(v); },
                 std::move(allowed)};
  d.dynamic = true;
  d.no_effect = true;
  return d;
}

ConfigKeyDef kafka_long_key(std::string name, std::string def, int64_t lo, std::string doc) {
  return kafka_stored(
      std::move(name), ConfigType::kLong, std::move(def), std::move(doc),
      [lo](const std::string& v) { kafka_integer(v, "LONG", INT64_MIN, INT64_MAX, lo, INT64_MAX); },
      fmt::format("[{},...]", lo));
}

ConfigKeyDef kafka_int_key(std::string name, std::string def, int64_t lo, int64_t hi, std::string doc) {
  return kafka_stored(
      std::move(name), ConfigType::kInt, std::move(def), std::move(doc),
      [lo, hi](const std::string& v) { kafka_integer(v, "INT", INT32_MIN, INT32_MAX, lo, hi); },
      hi == kIntMax ? fmt::format("[{},...]", lo) : fmt::format("[{},...,{}]", lo, hi));
}

ConfigKeyDef kafka_short_key(std::string name, std::string def, std::string doc) {
  return kafka_stored(
      std::move(name), ConfigType::kInt, std::move(def), std::move(doc),
      [](const std::string& v) { kafka_integer(v, "SHORT", INT16_MIN, INT16_MAX, INT16_MIN, INT16_MAX); }, "a SHORT");
}

ConfigKeyDef kafka_double_key(std::string name, std::string def, double lo, double hi, std::string doc) {
  return kafka_stored(
      std::move(name), ConfigType::kDouble, std::move(def), std::move(doc),
      [lo, hi](const std::string& v) { kafka_double(v, lo, hi); }, "a DOUBLE");
}

ConfigKeyDef kafka_bool_key(std::string name, std::string def, std::string doc) {
  return kafka_stored(
      std::move(name), ConfigType::kBool, std::move(def), std::move(doc),
      [](const std::string& v) {
        const auto s = to_lower(trim(v));
        if (s != "true" && s != "false") throw std::invalid_argument("Expected value to be either true or false");
      },
      "true or false");
}

// STRING, LIST, CLASS (Skiff loads no Java class: any name) and PASSWORD.
ConfigKeyDef kafka_text_key(std::string name, ConfigType type, std::string def, std::string doc) {
  return kafka_stored(
      std::move(name), type, std::move(def), std::move(doc), [](const std::string&) {}, "any");
}

void add_kafka_log_keys(std::vector<ConfigKeyDef>& d) {
  d.push_back(kafka_stored(
      "compression.type", ConfigType::kString, "producer", "Broker default of the topic config compression.type.",
      [](const std::string& v) {
        static const std::set<std::string> ok = {"uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"};
        if (!ok.count(std::string(trim(v))))
          throw std::invalid_argument("String must be one of: uncompressed, zstd, lz4, snappy, gzip, producer");
      },
      "[uncompressed, zstd, lz4, snappy, gzip, producer]"));
  d.push_back(kafka_stored(
      "compression.gzip.level", ConfigType::kInt, "-1", "Broker default of the topic config compression.gzip.level.",
      [](const std::string& v) {
        const auto n = kafka_integer(v, "INT", INT32_MIN, INT32_MAX, INT32_MIN, INT32_MAX);
        if (n != -1 && (n < 1 || n > 9)) throw std::invalid_argument("Value must be between 1 and 9, or -1");
      },
      "[1,...,9] or -1"));
  d.push_back(kafka_int_key("compression.lz4.level", "9", 1, 17, "Broker default of compression.lz4.level."));
  d.push_back(kafka_int_key("compression.zstd.level", "3", -131072, 22, "Broker default of compression.zstd.level."));
  d.push_back(
      kafka_double_key("log.cleaner.min.cleanable.ratio", "0.5", 0, 1, "Broker default of min.cleanable.dirty.ratio."));
  d.push_back(kafka_long_key("log.message.timestamp.after.max.ms", "3600000", 0,
                             "Broker default of message.timestamp.after.max.ms."));
  d.push_back(kafka_long_key("log.message.timestamp.before.max.ms", std::to_string(kLongMax), 0,
                             "Broker default of message.timestamp.before.max.ms."));
  d.push_back(kafka_stored(
      "log.roll.jitter.ms", ConfigType::kLong, "", "Broker default of segment.jitter.ms.",
      [](const std::string& v) {
        if (!trim(v).empty()) kafka_integer(v, "LONG", INT64_MIN, INT64_MAX, INT64_MIN, INT64_MAX);  // Kafka: null
      },
      "a LONG"));
  d.push_back(kafka_long_key("log.segment.delete.delay.ms", "60000", 0, "Broker default of file.delete.delay.ms."));
  d.push_back(
      kafka_int_key("min.insync.replicas", "1", 1, kIntMax, "Broker default of min.insync.replicas (one replica)."));
  d.push_back(kafka_bool_key("unclean.leader.election.enable", "false", "Broker default (one replica: never needed)."));
  d.push_back(kafka_int_key("max.decompressed.message.bytes", "2147483639", 1, 2147483639,
                            "Largest decompressed record batch Kafka validates."));
  d.push_back(kafka_text_key("cordoned.log.dirs", ConfigType::kList, "", "Log dirs where no new partition is placed."));
}

void add_kafka_thread_keys(std::vector<ConfigKeyDef>& d) {
  d.push_back(kafka_int_key("background.threads", "10", 1, kIntMax, "Kafka's background task threads."));
  d.push_back(kafka_int_key("num.recovery.threads.per.data.dir", "2", 1, kIntMax, "Log recovery threads per log dir."));
  d.push_back(kafka_int_key("num.replica.fetchers", "1", 1, kIntMax, "Replica fetcher threads (one node: none)."));
  d.push_back(kafka_bool_key("follower.fetch.last.tiered.offset.enable", "false", "Tiered storage followers."));
  d.push_back(kafka_int_key("max.connection.creation.rate", std::to_string(kIntMax), 0, kIntMax,
                            "Connections accepted per second (broker-wide or per listener)."));
  d.push_back(kafka_int_key("producer.id.expiration.ms", "86400000", 1, kIntMax, "Idle producer id expiry."));
  d.push_back(kafka_bool_key("transaction.partition.verification.enable", "true", "KIP-890 partition verification."));
  d.push_back(
      kafka_int_key("group.consumer.assignment.interval.ms", "1000", 0, kIntMax, "KIP-848 assignment batching."));
  d.push_back(kafka_bool_key("group.consumer.assignor.offload.enable", "true", "KIP-848 assignor offload."));
  d.push_back(kafka_int_key("group.coordinator.cached.buffer.max.bytes", "1048588", 524288, kIntMax,
                            "Group coordinator write buffer cache."));
  d.push_back(kafka_bool_key("group.share.assignor.offload.enable", "true", "Share group assignor offload."));
  d.push_back(kafka_int_key("group.streams.assignment.interval.ms", "1000", 0, kIntMax,
                            "Streams groups' batched assignment (Skiff assigns on the heartbeat)."));
  d.push_back(kafka_bool_key("group.streams.assignor.offload.enable", "true", "Streams group assignor offload."));
  d.push_back(kafka_text_key("metric.reporters", ConfigType::kList, "org.apache.kafka.common.metrics.JmxReporter",
                             "Kafka's Java metric reporter classes (Skiff's metrics: /metrics)."));
  d.push_back(kafka_text_key("config.providers", ConfigType::kList, "", "Kafka's Java config provider classes."));
}

// The listener keys Skiff lacks: GSSAPI (Kerberos is not supported), the SASL
// login refresh of Java's login modules, and Java security classes.
void add_kafka_listener_keys(std::vector<ConfigKeyDef>& d) {
  d.push_back(kafka_text_key("sasl.jaas.config", ConfigType::kPassword, "",
                             "A JAAS login context without a mechanism prefix (Skiff reads "
                             "listener.name.<l>.<mechanism>.sasl.jaas.config)."));
  d.push_back(kafka_text_key("sasl.kerberos.kinit.cmd", ConfigType::kString, "/usr/bin/kinit", "GSSAPI: kinit path."));
  d.push_back(kafka_long_key("sasl.kerberos.min.time.before.relogin", "60000", INT64_MIN,
                             "GSSAPI: login thread sleep time between refresh attempts."));
  d.push_back(kafka_text_key("sasl.kerberos.principal.to.local.rules", ConfigType::kList, "DEFAULT",
                             "GSSAPI: principal name mapping rules."));
  d.push_back(kafka_text_key("sasl.kerberos.service.name", ConfigType::kString, "", "GSSAPI: Kerberos service name."));
  d.push_back(
      kafka_double_key("sasl.kerberos.ticket.renew.jitter", "0.05", -HUGE_VAL, HUGE_VAL, "GSSAPI: renew jitter."));
  d.push_back(kafka_double_key("sasl.kerberos.ticket.renew.window.factor", "0.8", -HUGE_VAL, HUGE_VAL,
                               "GSSAPI: renew window factor."));
  d.push_back(kafka_short_key("sasl.login.refresh.buffer.seconds", "300", "Java login refresh buffer."));
  d.push_back(kafka_short_key("sasl.login.refresh.min.period.seconds", "60", "Java login refresh minimum period."));
  d.push_back(
      kafka_double_key("sasl.login.refresh.window.factor", "0.8", -HUGE_VAL, HUGE_VAL, "Java login refresh window."));
  d.push_back(
      kafka_double_key("sasl.login.refresh.window.jitter", "0.05", -HUGE_VAL, HUGE_VAL, "Java login refresh jitter."));
  d.push_back(kafka_text_key("principal.builder.class", ConfigType::kString,
                             "org.apache.kafka.common.security.authenticator.DefaultKafkaPrincipalBuilder",
                             "Kafka's Java principal builder class."));
  d.push_back(kafka_text_key("ssl.engine.factory.class", ConfigType::kString, "", "Kafka's Java SSL engine factory."));
  d.push_back(
      kafka_text_key("ssl.keymanager.algorithm", ConfigType::kString, "SunX509", "Java key manager algorithm."));
  d.push_back(kafka_text_key("ssl.provider", ConfigType::kString, "", "Java security provider."));
  d.push_back(kafka_text_key("ssl.secure.random.implementation", ConfigType::kString, "", "Java SecureRandom."));
  d.push_back(
      kafka_text_key("ssl.trustmanager.algorithm", ConfigType::kString, "PKIX", "Java trust manager algorithm."));
}

// Kafka dynamic keys Skiff defines (and validates with its own parser) but
// applies only at startup, or not at all: dynamic, with no effect.
constexpr std::string_view kKafkaStoredOnly[] = {"listeners",
                                                 "listener.security.protocol.map",
                                                 "sasl.enabled.mechanisms",
                                                 "sasl.mechanism.inter.broker.protocol",
                                                 "ssl.cipher.suites",
                                                 "ssl.client.auth",
                                                 "ssl.enabled.protocols",
                                                 "ssl.endpoint.identification.algorithm",
                                                 "ssl.key.password",
                                                 "ssl.keystore.certificate.chain",
                                                 "ssl.keystore.key",
                                                 "ssl.keystore.location",
                                                 "ssl.keystore.password",
                                                 "ssl.keystore.type",
                                                 "ssl.protocol",
                                                 "ssl.truststore.certificates",
                                                 "ssl.truststore.location",
                                                 "ssl.truststore.password",
                                                 "ssl.truststore.type",
                                                 "log.cleaner.backoff.ms",
                                                 "log.cleaner.dedupe.buffer.size",
                                                 "log.cleaner.delete.retention.ms",
                                                 "log.cleaner.io.buffer.load.factor",
                                                 "log.cleaner.io.buffer.size",
                                                 "log.cleaner.io.max.bytes.per.second",
                                                 "log.cleaner.max.compaction.lag.ms",
                                                 "log.cleaner.min.compaction.lag.ms",
                                                 "log.cleaner.threads",
                                                 "log.cleanup.policy",
                                                 "errors.deadletterqueue.auto.create.topics.enable",
                                                 "errors.deadletterqueue.topic.name.prefix",
                                                 "group.share.assignment.interval.ms",
                                                 "share.coordinator.cached.buffer.max.bytes"};

}  // namespace

int64_t kafka_integer(const std::string& value, const char* type, int64_t type_lo, int64_t type_hi, int64_t lo,
                      int64_t hi) {
  const auto text = std::string(trim(value));
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE || v < type_lo || v > type_hi)
    throw std::invalid_argument(fmt::format("Not a number of type {}", type));
  if (v < lo) throw std::invalid_argument(fmt::format("Value must be at least {}", lo));
  if (v > hi) throw std::invalid_argument(fmt::format("Value must be no more than {}", hi));
  return v;
}

double kafka_double(const std::string& value, double lo, double hi) {
  const auto text = std::string(trim(value));
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || std::isnan(v)) throw std::invalid_argument("Not a number of type DOUBLE");
  if (v < lo) throw std::invalid_argument(fmt::format("Value must be at least {}", lo));
  if (v > hi) throw std::invalid_argument(fmt::format("Value must be no more than {}", hi));
  return v;
}

void add_kafka_dynamic_keys(std::vector<ConfigKeyDef>& defs) {
  for (auto& def : defs) {
    for (auto name : kKafkaStoredOnly) {
      if (def.name != name || def.dynamic) continue;
      def.dynamic = true;
      def.no_effect = true;
      def.doc += kNoEffectDoc;
    }
  }
  add_kafka_log_keys(defs);
  add_kafka_thread_keys(defs);
  add_kafka_listener_keys(defs);
}

// Kafka's DynamicBrokerConfig.PER_BROKER_CONFIGS: the SSL keys, the listener
// keys and cordoned.log.dirs, less the three a cluster default may set.
bool per_broker_only(std::string_view key) {
  static const std::set<std::string, std::less<>> cluster_level = {"max.connections", "max.connection.creation.rate",
                                                                   "num.network.threads"};
  constexpr std::string_view kPrefix = "listener.name.";
  if (key.substr(0, kPrefix.size()) == kPrefix) {
    const auto dot = key.find('.', kPrefix.size());
    return dot == std::string_view::npos || !cluster_level.count(key.substr(dot + 1));
  }
  static const std::set<std::string, std::less<>> per_broker = {"cordoned.log.dirs",
                                                                "listeners",
                                                                "listener.security.protocol.map",
                                                                "principal.builder.class",
                                                                "sasl.mechanism.inter.broker.protocol",
                                                                "sasl.jaas.config",
                                                                "sasl.enabled.mechanisms",
                                                                "sasl.kerberos.service.name",
                                                                "sasl.kerberos.kinit.cmd",
                                                                "sasl.kerberos.ticket.renew.window.factor",
                                                                "sasl.kerberos.ticket.renew.jitter",
                                                                "sasl.kerberos.min.time.before.relogin",
                                                                "sasl.kerberos.principal.to.local.rules",
                                                                "sasl.login.refresh.window.factor",
                                                                "sasl.login.refresh.window.jitter",
                                                                "sasl.login.refresh.min.period.seconds",
                                                                "sasl.login.refresh.buffer.seconds"};
  return per_broker.count(key) > 0 || key.substr(0, 4) == "ssl.";
}

// Kafka's DYNAMIC_SECURITY_CONFIGS (SslConfigs.RECONFIGURABLE_CONFIGS): only
// as listener.name.<l>.<key>.
bool listener_prefix_only(std::string_view key) {
  static const std::set<std::string, std::less<>> keys = {
      "ssl.keystore.type",       "ssl.keystore.location",          "ssl.keystore.password", "ssl.key.password",
      "ssl.keystore.key",        "ssl.keystore.certificate.chain", "ssl.truststore.type",   "ssl.truststore.location",
      "ssl.truststore.password", "ssl.truststore.certificates"};
  return keys.count(key) > 0;
}

}  // namespace skiff::config
