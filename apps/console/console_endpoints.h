// The web console's JSON endpoints (docs/console-api.md), one function per
// endpoint, grouped by file: console_overview.cc (overview, stats,
// clients), console_topics.cc, console_messages.cc, console_groups.cc,
// console_schemas.cc; share and streams groups in console_share_groups.cc
// and console_streams_groups.cc.
// Each reads its arguments from the ConsoleCall, talks to the broker through
// call.kafka (Kafka requests, in-process) and returns the JSON body; a
// failure is thrown as client::ClientError (client/in_process_client.h).
// Threads: the HTTP thread, one call at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "client/in_process_client.h"
#include "common/json.h"
#include "common/json_writer.h"
#include "config/broker_info.h"
#include "network/http_message.h"
#include "protocol/error_names.h"

namespace skiff::metrics {
class Registry;
}

namespace skiff::console {

class SchemaCatalog;  // console_schemas.h

// A client that pushes its metrics (KIP-714), as the console lists it.
struct TelemetryClient {
  std::string instance_id;
  std::string client_id;
  std::string software_name;
  std::string software_version;
  std::string peer;
  int64_t last_push_ms = 0;
  std::vector<std::pair<std::string, double>> metrics;  // name{attributes}, value
};

// In-flight records of a share group by (topic, partition).
using ShareInFlight = std::map<std::pair<std::string, int32_t>, int64_t>;

// What endpoints read besides the Kafka client; all outlive the service.
struct ConsoleBroker {
  const config::BrokerInfo* info = nullptr;
  std::string version;
  int64_t started_ms = 0;                                 // wall clock
  std::vector<std::string> http_listeners;                // "127.0.0.1:8095", or "https://127.0.0.1:8443"
  std::map<std::string, std::string> security_protocols;  // by listener name
  const metrics::Registry* metrics = nullptr;             // null: request metrics off
  // The clients that push metrics (KIP-714): no Kafka API lists them, so
  // server/ hands the console this view (empty: none). Any thread.
  std::function<std::vector<TelemetryClient>()> telemetry_clients;
  // A share group's in-flight records per (topic, partition) that the broker
  // has loaded (Kafka's InFlightMessageCount): no Kafka API reports them, so
  // server/ hands the console this view (empty: none). Any thread.
  std::function<ShareInFlight(const std::string& group)> share_in_flight;
  // The built-in Schema Registry (console_schemas.h); null when it is off.
  const SchemaCatalog* schemas = nullptr;

  std::string security_protocol(const std::string& listener) const {
    auto it = security_protocols.find(listener);
    return it == security_protocols.end() ? "PLAINTEXT" : it->second;
  }
};

struct ConsoleCall {
  const network::HttpRequest& http;
  const JsonValue& body;  // a POST's JSON object (null for a GET)
  client::InProcessClient& kafka;
  const ConsoleBroker& broker;
  bool write_enabled;
  const std::string& auth;  // "none" or "basic"

  // A query parameter, or nullopt.
  std::optional<std::string> query(const std::string& name) const;
  // A required query parameter or body member as text (400 if missing).
  std::string required_query(const std::string& name) const;
  std::string required_string(const std::string& name) const;
  // Integers: a query parameter or body member, `fallback` when absent; 400
  // when not an integer.
  int64_t query_int(const std::string& name, int64_t fallback) const;
  int64_t body_int(const std::string& name, int64_t fallback) const;
};

[[noreturn]] void bad_request(const std::string& message);
[[noreturn]] void not_found(const std::string& message);

using Endpoint = std::function<std::string(ConsoleCall&)>;

std::string overview(ConsoleCall& call);
std::string stats(ConsoleCall& call);
std::string clients(ConsoleCall& call);

std::string list_topics(ConsoleCall& call);
std::string describe_topic(ConsoleCall& call);
std::string create_topic(ConsoleCall& call);
std::string delete_topic(ConsoleCall& call);
std::string alter_topic_configs(ConsoleCall& call);

std::string browse_messages(ConsoleCall& call);
std::string produce_message(ConsoleCall& call);

// console_schemas.cc: 404 when the registry is off.
std::string list_schema_subjects(ConsoleCall& call);
std::string describe_schema_subject(ConsoleCall& call);

std::string list_groups(ConsoleCall& call);
std::string describe_group(ConsoleCall& call);
std::string reset_group_offsets(ConsoleCall& call);
std::string delete_group(ConsoleCall& call);

// DescribeConfigs entries as the overview and topic views list them:
// name, value (null when sensitive), source name, sensitive, read_only.
template <class Entries>
void write_config_entries(JsonWriter& w, const Entries& entries) {
  static constexpr const char* kSources[] = {"UNKNOWN",
                                             "DYNAMIC_TOPIC_CONFIG",
                                             "DYNAMIC_BROKER_CONFIG",
                                             "DYNAMIC_DEFAULT_BROKER_CONFIG",
                                             "STATIC_BROKER_CONFIG",
                                             "DEFAULT_CONFIG",
                                             "DYNAMIC_BROKER_LOGGER_CONFIG",
                                             "CLIENT_METRICS_CONFIG",
                                             "GROUP_CONFIG"};
  for (const auto& c : entries) {
    const bool known = c.config_source >= 0 && c.config_source < static_cast<int>(std::size(kSources));
    w.begin_object().field("name", c.name);
    if (c.is_sensitive)
      w.key("value").null();
    else
      w.field("value", c.value);
    w.field("source", known ? kSources[c.config_source] : "UNKNOWN").field("sensitive", c.is_sensitive);
    w.field("read_only", c.read_only).end_object();
  }
}

// Shared by the endpoint files: the topics (name -> partition count) as
// Metadata lists them, and each partition's log start and high watermark.
struct PartitionOffsets {
  int64_t log_start = -1;
  int64_t high_watermark = -1;
};
std::map<std::string, int32_t> topic_partitions(client::InProcessClient& kafka,
                                                const std::vector<std::string>* only = nullptr);
// ListOffsets at `timestamp` (-2 earliest, -1 latest, or a time) for each
// (topic, partition); -1 where none. `read_committed`: latest is the last
// stable offset rather than the high watermark.
std::map<std::pair<std::string, int32_t>, int64_t> list_offsets(
    client::InProcessClient& kafka, const std::map<std::string, std::vector<int32_t>>& partitions, int64_t timestamp,
    bool read_committed = false);

// Share groups (console_share_groups.cc): members per group
// (ShareGroupDescribe), each partition's start offset and lag
// (DescribeShareGroupOffsets v1; -1 when unknown), and a group's
// members, assignments and offsets as /api/group writes them.
struct ShareOffset {
  std::string topic;
  int32_t partition = 0;
  int64_t start_offset = -1;
  int64_t lag = -1;
};
std::map<std::string, int64_t> share_member_counts(client::InProcessClient& kafka, const std::vector<std::string>& ids);
std::vector<ShareOffset> share_offsets(client::InProcessClient& kafka, const std::string& group);
void write_share_group(JsonWriter& w, ConsoleCall& call, const std::string& group);

// Streams groups (console_streams_groups.cc): members per group
// (StreamsGroupDescribe), the input topics of a group's topology (what a
// reset moves), and a group's epochs, members with their tasks, topology
// and topology description (KIP-1331) as /api/group writes them.
std::map<std::string, int64_t> streams_member_counts(client::InProcessClient& kafka,
                                                     const std::vector<std::string>& ids);
std::set<std::string> streams_input_topics(client::InProcessClient& kafka, const std::string& group);
void write_streams_group(JsonWriter& w, ConsoleCall& call, const std::string& group);

}  // namespace skiff::console
