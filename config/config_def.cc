#include "config/config_def.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <stdexcept>

#include "common/cpu_count.h"
#include "config/kraft_keys.h"
#include "config/string_util.h"

namespace skiff::config {
namespace {

// Thread pools sized to the machine: Kafka's 3 Processors and 8 handlers
// are 11 threads contending for the cores of a small machine, each wake-up
// a context switch (docs/benchmarks.md, "The cost of a request"). From 6
// CPUs on, Kafka's own defaults.
int64_t default_network_threads() { return std::clamp(usable_cpus() / 2, 1, 3); }
int64_t default_io_threads() { return std::clamp(usable_cpus() * 2, 2, 8); }

std::string range_text(int64_t lo, int64_t hi) {
  auto bound = [](int64_t v) {
    if (v == kLongMax) return std::string("9223372036854775807");
    return std::to_string(v);
  };
  return fmt::format("an integer in [{}, {}]", bound(lo), bound(hi));
}

template <typename T>
ConfigKeyDef integer_key(std::string name, int64_t def, int64_t lo, int64_t hi, std::string doc,
                         T BrokerConfig::*member) {
  bool is_long = sizeof(T) == 8;
  return ConfigKeyDef{
      std::move(name),
      is_long ? ConfigType::kLong : ConfigType::kInt,
      std::to_string(def),
      std::move(doc),
      [=](BrokerConfig& c, const std::string& v) { c.*member = static_cast<T>(parse_integer(v, lo, hi)); },
      range_text(lo, hi)};
}

// A double in [lo, hi]; `def_text` as Kafka prints the default.
ConfigKeyDef double_key(std::string name, std::string def_text, double lo, double hi, std::string doc,
                        double BrokerConfig::*member) {
  return ConfigKeyDef{std::move(name),
                      ConfigType::kDouble,
                      std::move(def_text),
                      std::move(doc),
                      [=](BrokerConfig& c, const std::string& v) {
                        size_t used = 0;
                        double d = 0;
                        try {
                          d = std::stod(std::string(trim(v)), &used);
                        } catch (const std::exception&) {
                          used = 0;
                        }
                        if (used == 0 || used != std::string(trim(v)).size() || !(d >= lo && d <= hi))
                          throw std::invalid_argument(fmt::format("expected a number in [{}, {}]", lo, hi));
                        c.*member = d;
                      },
                      fmt::format("[{},...,{}]", lo, hi)};
}

ConfigKeyDef bool_key(std::string name, bool def, std::string doc, bool BrokerConfig::*member) {
  return ConfigKeyDef{std::move(name),
                      ConfigType::kBool,
                      def ? "true" : "false",
                      std::move(doc),
                      [=](BrokerConfig& c, const std::string& v) {
                        auto s = to_lower(trim(v));
                        if (s == "true")
                          c.*member = true;
                        else if (s == "false")
                          c.*member = false;
                        else
                          throw std::invalid_argument("expected true or false");
                      },
                      "true or false"};
}

ConfigKeyDef enum_key(std::string name, std::string def, const std::vector<std::string>& allowed, std::string doc,
                      std::string BrokerConfig::*member) {
  return one_of_key(std::move(name), std::move(def), allowed, std::move(doc),
                    [member](BrokerConfig& c, const std::string& v) { c.*member = v; });
}

// group.consumer.assignors: Kafka's assignor names, or the class names of its
// two built-in assignors (Kafka accepts both).
ConfigKeyDef assignors_key() {
  return ConfigKeyDef{"group.consumer.assignors",
                      ConfigType::kList,
                      "uniform,range",
                      "Server-side assignors of consumer groups (KIP-848), by name; the first is the default.",
                      [](BrokerConfig& c, const std::string& v) {
                        std::vector<std::string> names;
                        for (auto item : split_list(v)) {
                          if (item == "org.apache.kafka.coordinator.group.assignor.UniformAssignor") item = "uniform";
                          if (item == "org.apache.kafka.coordinator.group.assignor.RangeAssignor") item = "range";
                          if (item != "uniform" && item != "range")
                            throw std::invalid_argument(fmt::format("unknown assignor '{}'", item));
                          if (std::find(names.begin(), names.end(), item) == names.end()) names.push_back(item);
                        }
                        if (names.empty()) throw std::invalid_argument("at least one assignor is needed");
                        c.group_consumer_assignors = std::move(names);
                      },
                      "a list of uniform and range"};
}

// The share coordinator (coordinator/share/share_coordinator.h): Kafka 4.4's
// ShareCoordinatorConfig names, defaults and bounds. A single node has one
// replica, one coordinator thread and writes uncompressed; those keys are
// accepted for existing config files.
void add_share_coordinator_keys(std::vector<ConfigKeyDef>& d) {
  d.push_back(integer_key("share.coordinator.state.topic.num.partitions", 50, 1, kIntMax,
                          "Partitions of __share_group_state (Kafka's abs(\"group:topicId:partition\".hashCode) % n "
                          "picks a share-partition's); once the topic exists its own count is used.",
                          &BrokerConfig::share_coordinator_state_topic_num_partitions));
  d.push_back(integer_key("share.coordinator.state.topic.segment.bytes", 104857600, 1, kIntMax,
                          "Segment size of __share_group_state.",
                          &BrokerConfig::share_coordinator_state_topic_segment_bytes));
  d.push_back(integer_key("share.coordinator.snapshot.update.records.per.snapshot", 500, 0, 500,
                          "Update records written between two snapshot records of a share-partition.",
                          &BrokerConfig::share_coordinator_snapshot_update_records_per_snapshot));
  d.push_back(integer_key("share.coordinator.state.topic.prune.interval.ms", 300000, 1, kIntMax,
                          "How often records of __share_group_state superseded by later snapshots are deleted.",
                          &BrokerConfig::share_coordinator_state_topic_prune_interval_ms));
  d.push_back(integer_key("share.coordinator.cold.partition.snapshot.interval.ms", 300000, 1, kIntMax,
                          "How often share-partitions not written for this long get a fresh snapshot.",
                          &BrokerConfig::share_coordinator_cold_partition_snapshot_interval_ms));
  d.push_back(integer_key("share.coordinator.state.topic.replication.factor", 3, 1, 32767,
                          "Accepted; a single node has one replica.",
                          &BrokerConfig::share_coordinator_state_topic_replication_factor));
  d.push_back(integer_key("share.coordinator.state.topic.min.isr", 2, 1, 32767,
                          "Accepted; a single node has one replica.",
                          &BrokerConfig::share_coordinator_state_topic_min_isr));
  d.push_back(integer_key("share.coordinator.threads", 1, 1, kIntMax,
                          "Accepted; the share coordinator runs on one strand.",
                          &BrokerConfig::share_coordinator_threads));
  d.push_back(integer_key("share.coordinator.write.timeout.ms", 5000, 1, kIntMax,
                          "Accepted; a single node acknowledges a write once it is on disk.",
                          &BrokerConfig::share_coordinator_write_timeout_ms));
  d.push_back(integer_key("share.coordinator.load.buffer.size", 5242880, 1, kIntMax, "Accepted; not used.",
                          &BrokerConfig::share_coordinator_load_buffer_size));
  d.push_back(integer_key("share.coordinator.append.linger.ms", -1, -1, kIntMax,
                          "Accepted; concurrent writes share one fsync (group commit).",
                          &BrokerConfig::share_coordinator_append_linger_ms));
  d.push_back(integer_key("share.coordinator.cached.buffer.max.bytes", 1048588, 524288, kIntMax, "Accepted; not used.",
                          &BrokerConfig::share_coordinator_cached_buffer_max_bytes));
}

void add_consumer_group_keys(std::vector<ConfigKeyDef>& d) {
  d.push_back(integer_key("group.consumer.session.timeout.ms", 45000, 1, kIntMax,
                          "The timeout to detect client failures when using the consumer group protocol.",
                          &BrokerConfig::group_consumer_session_timeout_ms));
  d.push_back(integer_key("group.consumer.min.session.timeout.ms", 45000, 1, kIntMax,
                          "The minimum session timeout a consumer group (consumer.session.timeout.ms) may set.",
                          &BrokerConfig::group_consumer_min_session_timeout_ms));
  d.push_back(integer_key("group.consumer.max.session.timeout.ms", 60000, 1, kIntMax,
                          "The maximum session timeout a consumer group (consumer.session.timeout.ms) may set.",
                          &BrokerConfig::group_consumer_max_session_timeout_ms));
  d.push_back(integer_key("group.consumer.heartbeat.interval.ms", 5000, 1, kIntMax,
                          "The heartbeat interval given to the members of a consumer group.",
                          &BrokerConfig::group_consumer_heartbeat_interval_ms));
  d.push_back(integer_key("group.consumer.min.heartbeat.interval.ms", 5000, 1, kIntMax,
                          "The minimum heartbeat interval a consumer group (consumer.heartbeat.interval.ms) may set.",
                          &BrokerConfig::group_consumer_min_heartbeat_interval_ms));
  d.push_back(integer_key("group.consumer.max.heartbeat.interval.ms", 15000, 1, kIntMax,
                          "The maximum heartbeat interval a consumer group (consumer.heartbeat.interval.ms) may set.",
                          &BrokerConfig::group_consumer_max_heartbeat_interval_ms));
  d.push_back(integer_key(
      "group.consumer.min.assignment.interval.ms", 0, 0, kIntMax,
      "The minimum interval between assignment updates a consumer group (consumer.assignment.interval.ms) may set.",
      &BrokerConfig::group_consumer_min_assignment_interval_ms));
  d.push_back(integer_key(
      "group.consumer.max.assignment.interval.ms", 15000, 0, kIntMax,
      "The maximum interval between assignment updates a consumer group (consumer.assignment.interval.ms) may set.",
      &BrokerConfig::group_consumer_max_assignment_interval_ms));
  d.push_back(integer_key("group.consumer.max.size", kIntMax, 1, kIntMax,
                          "Most members one consumer group (consumer protocol) may have (classic groups: "
                          "group.max.size).",
                          &BrokerConfig::group_consumer_max_size));
  d.push_back(assignors_key());
  d.push_back(enum_key("group.consumer.migration.policy", "bidirectional",
                       {"bidirectional", "upgrade", "downgrade", "disabled"},
                       "Which online migrations between the classic and the consumer group protocol are allowed.",
                       &BrokerConfig::group_consumer_migration_policy));
}

// Converts a coarser time unit into the *_ms member, as Kafka's
// log.retention.hours/minutes do (the most precise key set wins, see loader).
// group.share.assignors: Kafka 4.4 knows one share assignor, `simple`
// (also by its class name), and wants exactly one.
ConfigKeyDef share_assignors_key() {
  return ConfigKeyDef{"group.share.assignors",
                      ConfigType::kList,
                      "simple",
                      "The server-side assignor of share groups (KIP-932): exactly one, simple.",
                      [](BrokerConfig& c, const std::string& v) {
                        std::vector<std::string> names;
                        for (auto item : split_list(v)) {
                          if (item == "org.apache.kafka.coordinator.group.assignor.SimpleAssignor") item = "simple";
                          if (item != "simple") throw std::invalid_argument(fmt::format("unknown assignor '{}'", item));
                          names.push_back(item);
                        }
                        if (names.size() != 1)
                          throw std::invalid_argument(fmt::format(
                              "group.share.assignors must contain exactly one assignor, but found {}", names.size()));
                        c.group_share_assignors = std::move(names);
                      },
                      "simple"};
}

// KIP-932's share groups: Kafka 4.4's GroupCoordinatorConfig and
// ShareGroupConfig keys, defaults and bounds.
void add_share_group_keys(std::vector<ConfigKeyDef>& d) {
  d.push_back(integer_key("group.share.session.timeout.ms", 45000, 1, kIntMax,
                          "The timeout to detect client failures when using the share group protocol.",
                          &BrokerConfig::group_share_session_timeout_ms));
  d.push_back(integer_key("group.share.min.session.timeout.ms", 45000, 1, kIntMax,
                          "The minimum session timeout a share group (share.session.timeout.ms) may set.",
                          &BrokerConfig::group_share_min_session_timeout_ms));
  d.push_back(integer_key("group.share.max.session.timeout.ms", 60000, 1, kIntMax,
                          "The maximum session timeout a share group (share.session.timeout.ms) may set.",
                          &BrokerConfig::group_share_max_session_timeout_ms));
  d.push_back(integer_key("group.share.heartbeat.interval.ms", 5000, 1, kIntMax,
                          "The heartbeat interval given to the members of a share group.",
                          &BrokerConfig::group_share_heartbeat_interval_ms));
  d.push_back(integer_key("group.share.min.heartbeat.interval.ms", 5000, 1, kIntMax,
                          "The minimum heartbeat interval a share group (share.heartbeat.interval.ms) may set.",
                          &BrokerConfig::group_share_min_heartbeat_interval_ms));
  d.push_back(integer_key("group.share.max.heartbeat.interval.ms", 15000, 1, kIntMax,
                          "The maximum heartbeat interval a share group (share.heartbeat.interval.ms) may set.",
                          &BrokerConfig::group_share_max_heartbeat_interval_ms));
  d.push_back(integer_key("group.share.max.size", 200, 1, 1000,
                          "The maximum number of members that a single share group can accommodate.",
                          &BrokerConfig::group_share_max_size));
  d.push_back(integer_key("group.share.assignment.interval.ms", 1000, 0, kIntMax,
                          "The interval between assignment updates for a share group.",
                          &BrokerConfig::group_share_assignment_interval_ms));
  d.push_back(integer_key(
      "group.share.min.assignment.interval.ms", 0, 0, kIntMax,
      "The minimum interval between assignment updates a share group (share.assignment.interval.ms) may set.",
      &BrokerConfig::group_share_min_assignment_interval_ms));
  d.push_back(integer_key(
      "group.share.max.assignment.interval.ms", 15000, 0, kIntMax,
      "The maximum interval between assignment updates a share group (share.assignment.interval.ms) may set.",
      &BrokerConfig::group_share_max_assignment_interval_ms));
  d.push_back(integer_key("group.share.initialize.retry.interval.ms", 30000, 1, kIntMax,
                          "Time elapsed before a share group asks again to initialize the state of partitions whose "
                          "initialization did not finish.",
                          &BrokerConfig::group_share_initialize_retry_interval_ms));
  d.push_back(integer_key("group.share.delivery.count.limit", 5, 2, 10,
                          "The maximum number of delivery attempts for a record delivered to a share group.",
                          &BrokerConfig::group_share_delivery_count_limit));
  d.push_back(integer_key("group.share.min.delivery.count.limit", 2, 2, 5,
                          "The minimum delivery count limit a share group (share.delivery.count.limit) may set.",
                          &BrokerConfig::group_share_min_delivery_count_limit));
  d.push_back(integer_key("group.share.max.delivery.count.limit", 10, 5, 25,
                          "The maximum delivery count limit a share group (share.delivery.count.limit) may set.",
                          &BrokerConfig::group_share_max_delivery_count_limit));
  d.push_back(integer_key("group.share.record.lock.duration.ms", 30000, 1000, 3600000,
                          "The record acquisition lock duration in milliseconds for share groups.",
                          &BrokerConfig::group_share_record_lock_duration_ms));
  d.push_back(integer_key("group.share.min.record.lock.duration.ms", 15000, 1000, 30000,
                          "The minimum record lock duration a share group (share.record.lock.duration.ms) may set.",
                          &BrokerConfig::group_share_min_record_lock_duration_ms));
  d.push_back(integer_key("group.share.max.record.lock.duration.ms", 60000, 30000, 3600000,
                          "The maximum record lock duration a share group (share.record.lock.duration.ms) may set.",
                          &BrokerConfig::group_share_max_record_lock_duration_ms));
  d.push_back(integer_key("group.share.partition.max.record.locks", 2000, 100, 10000,
                          "Share-group record lock limit per share-partition.",
                          &BrokerConfig::group_share_partition_max_record_locks));
  d.push_back(integer_key(
      "group.share.min.partition.max.record.locks", 100, 100, 2000,
      "The minimum record lock limit per share-partition a share group (share.partition.max.record.locks) may set.",
      &BrokerConfig::group_share_min_partition_max_record_locks));
  d.push_back(integer_key(
      "group.share.max.partition.max.record.locks", 4000, 2000, 10000,
      "The maximum record lock limit per share-partition a share group (share.partition.max.record.locks) may set.",
      &BrokerConfig::group_share_max_partition_max_record_locks));
  d.push_back(integer_key("group.share.max.share.sessions", 2000, 1, kIntMax,
                          "The maximum number of share sessions per broker.",
                          &BrokerConfig::group_share_max_share_sessions));
  d.push_back(share_assignors_key());
  // KIP-1191's dead-letter queues of share groups (share.version 2).
  d.push_back(bool_key("errors.deadletterqueue.auto.create.topics.enable", false,
                       "Whether a share group's DLQ topic is created when it does not exist (KIP-1191).",
                       &BrokerConfig::errors_deadletterqueue_auto_create_topics_enable));
  d.push_back({"errors.deadletterqueue.topic.name.prefix", ConfigType::kString, "dlq.",
               "The prefix DLQ topic names of share groups must have (empty: any name).",
               [](BrokerConfig& c, const std::string& v) { c.errors_deadletterqueue_topic_name_prefix = v; },
               "a topic name prefix"});
}

ConfigKeyDef scaled_ms_key(std::string name, int64_t def, int64_t scale, std::string doc,
                           int64_t BrokerConfig::*member) {
  return ConfigKeyDef{std::move(name),
                      ConfigType::kLong,
                      std::to_string(def),
                      std::move(doc),
                      [=](BrokerConfig& c, const std::string& v) {
                        int64_t n = parse_integer(v, -1, kIntMax);
                        c.*member = n < 0 ? -1 : n * scale;
                      },
                      range_text(-1, kIntMax) + " (-1: no limit)"};
}

// Marks a row as changeable at runtime (AlterConfigs on the BROKER resource).
ConfigKeyDef dynamic(ConfigKeyDef def) {
  def.dynamic = true;
  return def;
}

std::vector<ConfigKeyDef> build_defs() {
  std::vector<ConfigKeyDef> d;
  d.push_back(integer_key("node.id", 1, 0, kIntMax, "This broker's id, reported in Metadata.", &BrokerConfig::node_id));
  d.push_back({"listeners", ConfigType::kList, "PLAINTEXT://localhost:9092",
               "Comma-separated NAME://host:port endpoints to listen on. An empty host or 0.0.0.0 listens on every "
               "IPv4 interface, [::] on every interface; localhost listens on both 127.0.0.1 and ::1.",
               [](BrokerConfig& c, const std::string& v) {
                 c.listeners = parse_listener_list(v);
                 if (c.listeners.empty()) throw std::invalid_argument("at least one listener is required");
               },
               "NAME://host:port[,NAME://host:port...]"});
  d.push_back({"advertised.listeners", ConfigType::kList, "",
               "Endpoints given to clients in Metadata, by listener name. Empty: the listeners themselves.",
               [](BrokerConfig& c, const std::string& v) { c.advertised_listeners = parse_listener_list(v); },
               "NAME://host:port[,...], each NAME one of the listeners"});
  d.push_back({"listener.security.protocol.map", ConfigType::kList, "PLAINTEXT:PLAINTEXT",
               "Listener name to security protocol: PLAINTEXT, SSL (TLS, the ssl.* keys), SASL_PLAINTEXT or SASL_SSL "
               "(SASL, the sasl.* keys, over TCP or over TLS).",
               [](BrokerConfig& c, const std::string& v) {
                 c.listener_security_protocol_map.clear();
                 for (auto& item : split_list(v)) {
                   auto colon = item.find(':');
                   if (colon == std::string::npos || colon == 0 || colon + 1 == item.size())
                     throw std::invalid_argument("expected NAME:PROTOCOL pairs");
                   auto proto = item.substr(colon + 1);
                   if (proto != "PLAINTEXT" && proto != "SSL" && proto != "SASL_PLAINTEXT" && proto != "SASL_SSL")
                     throw std::invalid_argument(fmt::format("unknown security protocol '{}'", proto));
                   c.listener_security_protocol_map[item.substr(0, colon)] = proto;
                 }
               },
               "NAME:PROTOCOL[,...], PROTOCOL one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL"});
  d.push_back(
      {"http.listeners", ConfigType::kList, "http://127.0.0.1:8095",
       "HTTP endpoints for health, readiness, metrics and the web console (GET /healthz, /readyz, /metrics, /), "
       "comma-separated http://host:port or https://host:port; empty: no HTTP listener. An https:// endpoint "
       "serves TLS with the ssl.* keys, overridden key by key by listener.name.http.ssl.*. A busy port fails "
       "startup when set explicitly and only warns when it is the default.",
       [](BrokerConfig& c, const std::string& v) { c.http_listeners = parse_http_listener_list(v); },
       "http[s]://host:port[,http[s]://host:port...] (port in [0, 65535]), or empty"});
  d.push_back(
      {"schema.registry.listeners", ConfigType::kList, "http://127.0.0.1:8081",
       "The built-in Schema Registry's endpoints (Confluent's REST API, the `_schemas` topic), comma-separated "
       "http://host:port or https://host:port; empty: no registry. An https:// endpoint serves TLS with the ssl.* "
       "keys, overridden key by key by listener.name.schema_registry.ssl.*. A busy port fails startup when set "
       "explicitly and only warns when it is the default.",
       [](BrokerConfig& c, const std::string& v) { c.schema_registry_listeners = parse_http_listener_list(v); },
       "http[s]://host:port[,http[s]://host:port...] (port in [0, 65535]), or empty"});
  d.push_back(bool_key("http.console.write.enabled", true,
                       "The web console (/ on http.listeners) may create and delete topics, change configs, produce "
                       "and reset or delete consumer groups; off: it only reads (the container image's default).",
                       &BrokerConfig::http_console_write_enabled));
  d.push_back(bool_key("skiff.metrics.partition.series.enable", true,
                       "Per-partition series on /metrics (log size, start and end offset); off: log size per topic "
                       "only, for brokers with very many partitions.",
                       &BrokerConfig::metrics_partition_series));
  d.push_back(bool_key("skiff.metrics.requests.enable", true,
                       "Request and traffic metrics on /metrics (requests and latency histograms per API, messages "
                       "and bytes in and out per topic); off: only the log, process and group series.",
                       &BrokerConfig::metrics_requests));
  d.push_back({"log.dirs", ConfigType::kList, "/tmp/skiff-logs", "Directories holding partition data.",
               [](BrokerConfig& c, const std::string& v) {
                 c.log_dirs = split_list(v);
                 if (c.log_dirs.empty()) throw std::invalid_argument("at least one directory is required");
               },
               "a comma-separated list of directories"});
  d.push_back(dynamic(integer_key("num.network.threads", default_network_threads(), 1, 256,
                                  "Processor threads (N), each with its own event loop. Default: half the usable "
                                  "CPUs, from 1 to 3 (Kafka's 3). Dynamic: from half to twice the current value per "
                                  "change, as Kafka.",
                                  &BrokerConfig::num_network_threads)));
  d.push_back(dynamic(integer_key("num.io.threads", default_io_threads(), 1, 1024,
                                  "Request handler threads (M). Default: twice the usable CPUs, from 2 to 8 (Kafka's "
                                  "8). Dynamic: from half to twice the current value per change, as Kafka.",
                                  &BrokerConfig::num_io_threads)));
  d.push_back(integer_key("skiff.network.coalesce.us", 500, 0, 100000,
                          "Under a steady load of small requests from several connections, a Processor looks at its "
                          "sockets at most once per this many microseconds, so that one wake-up serves a batch of "
                          "requests, and the responses to a client's pipelined requests leave together (half the "
                          "broker CPU at 10,000 requests/s, for up to about twice this much more latency); below one "
                          "request per period, or with one busy connection, it is woken by each request as usual, and "
                          "when each connection sends more than four requests per period it looks sooner, so that "
                          "clients keeping five in flight are never capped at five per period. 0: off.",
                          &BrokerConfig::network_coalesce_us));
  d.push_back(integer_key("queued.max.requests", 500, 1, kIntMax,
                          "Requests the RequestChannel holds before Processors stop reading.",
                          &BrokerConfig::queued_max_requests));
  d.push_back(integer_key("queued.max.request.bytes", int64_t{100} * 1024 * 1024, -1, kLongMax,
                          "Request bytes read but not yet answered, across all connections, at which Processors stop "
                          "reading until some are answered (exceeded by one frame at most); -1 or 0: unbounded.",
                          &BrokerConfig::queued_max_request_bytes));
  d.push_back(integer_key("socket.request.max.bytes", int64_t{100} * 1024 * 1024, 8, kIntMax,
                          "Largest request frame accepted; a larger one closes the connection.",
                          &BrokerConfig::socket_request_max_bytes));
  d.push_back(integer_key("socket.send.buffer.bytes", int64_t{100} * 1024, -1, kIntMax,
                          "SO_SNDBUF; -1 keeps the OS default.", &BrokerConfig::socket_send_buffer_bytes));
  d.push_back(integer_key("socket.receive.buffer.bytes", int64_t{100} * 1024, -1, kIntMax,
                          "SO_RCVBUF; -1 keeps the OS default.", &BrokerConfig::socket_receive_buffer_bytes));
  d.push_back(integer_key("connections.max.idle.ms", 600000, 1, kLongMax, "Idle connections are closed after this.",
                          &BrokerConfig::connections_max_idle_ms));
  d.push_back(integer_key("connection.failed.authentication.delay.ms", 100, 0, kIntMax,
                          "A failed SASL authentication is answered, and its connection closed, after this delay.",
                          &BrokerConfig::connection_failed_authentication_delay_ms));
  d.push_back(integer_key("sasl.server.max.receive.size", 524288, 1, kIntMax,
                          "Largest request accepted before SASL authentication completes; a larger one closes the "
                          "connection.",
                          &BrokerConfig::sasl_server_max_receive_size));
  d.push_back(dynamic(integer_key("max.connections", kIntMax, 0, kIntMax, "Broker-wide connection limit.",
                                  &BrokerConfig::max_connections)));
  d.push_back(dynamic(integer_key("max.connections.per.ip", kIntMax, 0, kIntMax,
                                  "Connections allowed from one IP address.", &BrokerConfig::max_connections_per_ip)));
  d.push_back(dynamic({"max.connections.per.ip.overrides", ConfigType::kList, "",
                       "Per-host exceptions to max.connections.per.ip, as host:n,host:n.",
                       [](BrokerConfig& c, const std::string& v) {
                         c.max_connections_per_ip_overrides.clear();
                         for (auto& item : split_list(v)) {
                           auto colon = item.rfind(':');
                           if (colon == std::string::npos || colon == 0)
                             throw std::invalid_argument(fmt::format("'{}' is not host:n", item));
                           int64_t n = parse_integer(item.substr(colon + 1), 0, kIntMax);
                           c.max_connections_per_ip_overrides[item.substr(0, colon)] = static_cast<int32_t>(n);
                         }
                       },
                       "host:n[,host:n...] with n an integer in [0, 2147483647]"}));

  d.push_back(dynamic(integer_key("log.segment.bytes", 1LL << 30, 1048576, kIntMax, "Roll a segment at this size.",
                                  &BrokerConfig::log_segment_bytes)));
  d.push_back(dynamic(integer_key("log.roll.ms", 7LL * 24 * 3600 * 1000, 1, kLongMax, "Roll a segment at this age.",
                                  &BrokerConfig::log_roll_ms)));
  d.push_back(dynamic(scaled_ms_key("log.roll.hours", 168, int64_t{3600} * 1000,
                                    "Roll a segment at this age (log.roll.ms wins).", &BrokerConfig::log_roll_ms)));
  d.push_back(
      dynamic(integer_key("log.retention.ms", 7LL * 24 * 3600 * 1000, -1, kLongMax,
                          "Delete segments older than this; -1 keeps them forever.", &BrokerConfig::log_retention_ms)));
  d.push_back(dynamic(scaled_ms_key("log.retention.minutes", int64_t{7} * 24 * 60, int64_t{60} * 1000,
                                    "Retention in minutes (log.retention.ms wins).", &BrokerConfig::log_retention_ms)));
  d.push_back(dynamic(scaled_ms_key("log.retention.hours", 168, int64_t{3600} * 1000,
                                    "Retention in hours (log.retention.ms and .minutes win).",
                                    &BrokerConfig::log_retention_ms)));
  d.push_back(dynamic(integer_key("log.retention.bytes", -1, -1, kLongMax, "Per-partition size cap; -1: none.",
                                  &BrokerConfig::log_retention_bytes)));
  d.push_back(integer_key("log.retention.check.interval.ms", 300000, 1, kLongMax, "How often retention runs.",
                          &BrokerConfig::log_retention_check_interval_ms));
  d.push_back(dynamic(integer_key("log.flush.interval.messages", kLongMax, 1, kLongMax,
                                  "fsync after this many messages; 1 = before every acknowledgement.",
                                  &BrokerConfig::log_flush_interval_messages)));
  d.push_back(dynamic(integer_key("log.flush.interval.ms", -1, -1, kLongMax,
                                  "fsync data older than this; -1 leaves it to the OS.",
                                  &BrokerConfig::log_flush_interval_ms)));
  d.push_back(dynamic(integer_key("log.index.interval.bytes", 4096, 0, kIntMax, "Bytes between offset index entries.",
                                  &BrokerConfig::log_index_interval_bytes)));
  d.push_back(dynamic(integer_key("log.index.size.max.bytes", int64_t{10} * 1024 * 1024, 4096, kIntMax,
                                  "Preallocated size of each index file.", &BrokerConfig::log_index_size_max_bytes)));
  d.push_back(dynamic(bool_key("log.preallocate", false,
                               "Default preallocate of topics: a new segment's disk blocks are allocated up front.",
                               &BrokerConfig::log_preallocate)));
  d.push_back(dynamic(integer_key("message.max.bytes", 1048588, 0, kIntMax, "Largest record batch accepted.",
                                  &BrokerConfig::message_max_bytes)));
  d.push_back(dynamic(enum_key("log.message.timestamp.type", "CreateTime", {"CreateTime", "LogAppendTime"},
                               "Timestamp kept in batches: the producer's or the broker's.",
                               &BrokerConfig::log_message_timestamp_type)));
  d.push_back(dynamic(integer_key("replica.alter.log.dirs.io.max.bytes.per.second", kLongMax, 1, kLongMax,
                                  "Bytes per second a partition moving between log dirs (AlterReplicaLogDirs) is "
                                  "copied at.",
                                  &BrokerConfig::replica_alter_log_dirs_io_max_bytes_per_second)));
  d.push_back(dynamic(integer_key("leader.replication.throttled.rate", kLongMax, 0, kLongMax,
                                  "Reassignment throttle of leaders; accepted, no effect on one node (no followers).",
                                  &BrokerConfig::leader_replication_throttled_rate)));
  d.push_back(dynamic(integer_key("follower.replication.throttled.rate", kLongMax, 0, kLongMax,
                                  "Reassignment throttle of followers; accepted, no effect on one node (no followers).",
                                  &BrokerConfig::follower_replication_throttled_rate)));
  d.push_back({"log.cleanup.policy", ConfigType::kList, "delete",
               "Default cleanup.policy of topics: delete (retention), compact (log cleaner), or both.",
               [](BrokerConfig& c, const std::string& v) {
                 std::string out;
                 for (const auto& item : split_list(v)) {
                   auto p = to_lower(item);
                   if (p != "delete" && p != "compact") throw std::invalid_argument("expected delete and/or compact");
                   out += (out.empty() ? "" : ",") + p;
                 }
                 if (out.empty()) throw std::invalid_argument("expected delete and/or compact");
                 c.log_cleanup_policy = out;
               },
               "[delete, compact]"});
  d.push_back(bool_key("log.cleaner.enable", true, "Run the log cleaner (compacted topics).",
                       &BrokerConfig::log_cleaner_enable));
  d.push_back(integer_key("log.cleaner.threads", 1, 0, 64, "Log cleaner threads (0: none).",
                          &BrokerConfig::log_cleaner_threads));
  d.push_back(integer_key("log.cleaner.dedupe.buffer.size", 128LL * 1024 * 1024, 0, kLongMax,
                          "Memory for the cleaner's key map, shared by its threads.",
                          &BrokerConfig::log_cleaner_dedupe_buffer_size));
  d.push_back(integer_key("log.cleaner.io.buffer.size", int64_t{512} * 1024, 0, kIntMax, "Cleaner read/write buffer.",
                          &BrokerConfig::log_cleaner_io_buffer_size));
  d.push_back(double_key("log.cleaner.io.buffer.load.factor", "0.9", 0.01, 1.0,
                         "Fill of the cleaner's key map at which it counts as full.",
                         &BrokerConfig::log_cleaner_io_buffer_load_factor));
  d.push_back(double_key("log.cleaner.io.max.bytes.per.second", "1.7976931348623157E308", 1.0, 1.7976931348623157e308,
                         "Cleaner I/O (read and written) bytes per second, all threads together.",
                         &BrokerConfig::log_cleaner_io_max_bytes_per_second));
  d.push_back(integer_key("log.cleaner.backoff.ms", 15000, 0, kLongMax, "Cleaner sleep when nothing needs cleaning.",
                          &BrokerConfig::log_cleaner_backoff_ms));
  d.push_back(integer_key("log.cleaner.min.compaction.lag.ms", 0, 0, kLongMax,
                          "Default min.compaction.lag.ms of topics.",
                          &BrokerConfig::log_cleaner_min_compaction_lag_ms));
  d.push_back(integer_key("log.cleaner.max.compaction.lag.ms", kLongMax, 1, kLongMax,
                          "Default max.compaction.lag.ms of topics.",
                          &BrokerConfig::log_cleaner_max_compaction_lag_ms));
  d.push_back(integer_key("log.cleaner.delete.retention.ms", 24LL * 3600 * 1000, 0, kLongMax,
                          "Default delete.retention.ms of topics.", &BrokerConfig::log_cleaner_delete_retention_ms));
  d.push_back(bool_key("auto.create.topics.enable", true, "Create unknown topics on Metadata and Produce.",
                       &BrokerConfig::auto_create_topics_enable));
  d.push_back(
      integer_key("num.partitions", 1, 1, 100000, "Partitions of auto-created topics.", &BrokerConfig::num_partitions));
  d.push_back(integer_key("default.replication.factor", 1, 1, 1,
                          "Replication factor of auto-created topics (a single node has one replica).",
                          &BrokerConfig::default_replication_factor));
  d.push_back(bool_key("delete.topic.enable", true, "Allow DeleteTopics (false: TOPIC_DELETION_DISABLED).",
                       &BrokerConfig::delete_topic_enable));
  d.push_back(bool_key("skiff.accept.replication.factor.enable", false,
                       "Accept CreateTopics with a replication factor above 1 as 1, with a warning, instead of "
                       "INVALID_REPLICATION_FACTOR (for apps configured for a production cluster).",
                       &BrokerConfig::accept_replication_factor));
  d.push_back(integer_key("skiff.max.partitions", 100000, 1, kIntMax,
                          "Most partitions the broker holds in all; CreateTopics, CreatePartitions and "
                          "auto-creation beyond it get POLICY_VIOLATION.",
                          &BrokerConfig::max_partitions));

  d.push_back(integer_key("group.min.session.timeout.ms", 6000, 0, kIntMax,
                          "Shortest session timeout a group member may ask for.",
                          &BrokerConfig::group_min_session_timeout_ms));
  d.push_back(integer_key("group.max.session.timeout.ms", 1800000, 0, kIntMax,
                          "Longest session timeout a group member may ask for.",
                          &BrokerConfig::group_max_session_timeout_ms));
  d.push_back(integer_key("group.max.size", kIntMax, 1, kIntMax, "Most members one consumer group may have.",
                          &BrokerConfig::group_max_size));
  d.push_back(integer_key("group.initial.rebalance.delay.ms", 0, 0, kIntMax,
                          "How long the first rebalance of an empty group waits for more members (Kafka: 3000).",
                          &BrokerConfig::group_initial_rebalance_delay_ms));
  d.push_back(scaled_ms_key("offsets.retention.minutes", int64_t{7} * 24 * 60, int64_t{60} * 1000,
                            "Committed offsets of an empty group expire after this.",
                            &BrokerConfig::offsets_retention_ms));
  d.push_back(integer_key("offsets.retention.check.interval.ms", 600000, 1, kLongMax,
                          "How often expired committed offsets are removed.",
                          &BrokerConfig::offsets_retention_check_interval_ms));
  d.push_back(integer_key("offset.metadata.max.bytes", 4096, 0, kIntMax,
                          "Longest metadata string an offset commit may carry.",
                          &BrokerConfig::offset_metadata_max_bytes));
  d.push_back(integer_key("offsets.topic.num.partitions", 50, 1, kIntMax,
                          "Partitions of __consumer_offsets: which partition's transaction markers end a "
                          "group's transactional offsets. Do not change it once groups exist.",
                          &BrokerConfig::offsets_topic_num_partitions));
  d.push_back(integer_key("offsets.topic.segment.bytes", 104857600, 1, kIntMax,
                          "Segment size of __consumer_offsets (compacted by the log cleaner).",
                          &BrokerConfig::offsets_topic_segment_bytes));

  add_consumer_group_keys(d);
  add_share_group_keys(d);
  add_streams_group_keys(d);

  d.push_back(integer_key("transaction.max.timeout.ms", 900000, 1, kIntMax,
                          "Longest transaction timeout a producer may ask for (INVALID_TRANSACTION_TIMEOUT beyond).",
                          &BrokerConfig::transaction_max_timeout_ms));
  d.push_back(integer_key("transactional.id.expiration.ms", 604800000, 1, kIntMax,
                          "A transactional id with no transaction for this long is removed.",
                          &BrokerConfig::transactional_id_expiration_ms));
  d.push_back(integer_key("add.partitions.to.txn.retry.backoff.max.ms", 100, 0, kIntMax,
                          "How long adding a partition to a transaction (Produce v12+, AddPartitionsToTxn, "
                          "AddOffsetsToTxn) waits for the transaction's previous end to finish before answering "
                          "CONCURRENT_TRANSACTIONS.",
                          &BrokerConfig::add_partitions_to_txn_retry_backoff_max_ms));
  d.push_back(integer_key("transaction.abort.timed.out.transaction.cleanup.interval.ms", 10000, 1, kIntMax,
                          "How often transactions past their timeout are aborted.",
                          &BrokerConfig::transaction_abort_timed_out_interval_ms));
  d.push_back(integer_key("transaction.remove.expired.transaction.cleanup.interval.ms", 3600000, 1, kIntMax,
                          "How often expired transactional ids are removed.",
                          &BrokerConfig::transaction_remove_expired_interval_ms));
  d.push_back(integer_key("transaction.state.log.num.partitions", 50, 1, kIntMax,
                          "Accepted; a single node keeps __transaction_state in one partition.",
                          &BrokerConfig::transaction_state_log_num_partitions));
  d.push_back(integer_key("transaction.state.log.segment.bytes", 104857600, 1, kIntMax,
                          "Segment size of __transaction_state.", &BrokerConfig::transaction_state_log_segment_bytes));
  d.push_back(integer_key("transaction.state.log.replication.factor", 3, 1, 32767,
                          "Accepted; a single node has one replica.",
                          &BrokerConfig::transaction_state_log_replication_factor));
  d.push_back(integer_key("transaction.state.log.min.isr", 2, 1, kIntMax, "Accepted; a single node has one replica.",
                          &BrokerConfig::transaction_state_log_min_isr));

  add_share_coordinator_keys(d);
  add_ssl_keys(d);
  add_sasl_keys(d);

  d.push_back(enum_key("skiff.log.level", "info", {"trace", "debug", "info", "warn", "error", "critical", "off"},
                       "Level of the broker's own log (not partition data).", &BrokerConfig::log_level));
  d.push_back({"skiff.log.file", ConfigType::kString, "", "Also write the broker's own log to this file.",
               [](BrokerConfig& c, const std::string& v) { c.log_file = std::string(trim(v)); }, "a file path"});
  d.push_back(integer_key("skiff.shutdown.timeout.ms", 10000, 0, kLongMax,
                          "How long graceful shutdown waits for in-flight requests.",
                          &BrokerConfig::shutdown_timeout_ms));
  d.push_back(integer_key("skiff.log.fd.cache.size", 0, 0, kIntMax,
                          "Most segment-file descriptors (.log/.index/.timeindex of all partitions) kept open; the "
                          "rest are reopened on demand. 0: derived from RLIMIT_NOFILE at startup, leaving a "
                          "reserve for connections and other files.",
                          &BrokerConfig::log_fd_cache_size));
  add_authorizer_keys(d);
  add_scram_keys(d);
  add_rest_proxy_keys(d);
  add_kraft_keys(d);
  add_tiered_storage_keys(d);
  add_kafka_dynamic_keys(d);  // last: marks rows above
  return d;
}

}  // namespace

const std::vector<ConfigKeyDef>& config_defs() {
  static const std::vector<ConfigKeyDef> defs = build_defs();
  return defs;
}

const ConfigKeyDef* find_config_def(std::string_view name) {
  for (auto& d : config_defs())
    if (d.name == name) return &d;
  return nullptr;
}

std::string env_var_name(std::string_view key) {
  std::string out = "SKIFF_";
  for (char c : key) out += c == '.' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

const char* to_string(ConfigSource s) {
  switch (s) {
    case ConfigSource::kDefault:
      return "default";
    case ConfigSource::kFile:
      return "file";
    case ConfigSource::kEnvironment:
      return "environment";
    case ConfigSource::kCommandLine:
      return "command line";
    case ConfigSource::kDynamicDefault:
      return "dynamic cluster default";
    case ConfigSource::kDynamicBroker:
      return "dynamic per-broker";
  }
  return "?";
}

int64_t parse_integer(const std::string& value, int64_t lo, int64_t hi) {
  auto text = trim(value);
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || v < lo || v > hi)
    throw std::invalid_argument(fmt::format("expected {}", range_text(lo, hi)));
  return v;
}

ConfigKeyDef one_of_key(std::string name, std::string def, const std::vector<std::string>& allowed, std::string doc,
                        const std::function<void(BrokerConfig&, const std::string&)>& store) {
  std::string allowed_text;
  for (const auto& a : allowed) allowed_text += (allowed_text.empty() ? "" : ", ") + a;
  return ConfigKeyDef{std::move(name),
                      ConfigType::kString,
                      std::move(def),
                      std::move(doc),
                      [=](BrokerConfig& c, const std::string& v) {
                        const auto s = to_lower(trim(v));
                        for (const auto& a : allowed) {
                          if (to_lower(a) == s) {
                            store(c, a);
                            return;
                          }
                        }
                        throw std::invalid_argument(fmt::format("expected one of: {}", allowed_text));
                      },
                      "one of " + allowed_text};
}

}  // namespace skiff::config
