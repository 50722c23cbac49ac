// GET /api/overview, /api/stats and /api/clients (docs/console-api.md).
#include <chrono>

#include "apps/console/console_endpoints.h"
#include "common/metrics.h"
#include "protocol/generated/describe_configs_request.h"
#include "protocol/generated/describe_configs_response.h"
#include "protocol/generated/describe_log_dirs_request.h"
#include "protocol/generated/describe_log_dirs_response.h"

namespace skiff::console {
namespace {

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void write_log_dirs(JsonWriter& w, client::InProcessClient& kafka) {
  protocol::DescribeLogDirsRequest req;
  req.topics = std::nullopt;  // every partition
  auto resp = kafka.call<protocol::DescribeLogDirsResponse>(req, 4);
  client::throw_if_kafka_error(resp.error_code);
  w.key("log_dirs").begin_array();
  for (const auto& d : resp.results) {
    int64_t log_bytes = 0;
    for (const auto& t : d.topics)
      for (const auto& p : t.partitions) log_bytes += p.partition_size;
    w.begin_object().field("path", d.log_dir).field("total_bytes", d.total_bytes);
    w.field("usable_bytes", d.usable_bytes).field("log_bytes", log_bytes);
    if (d.error_code == 0)
      w.field("error", std::optional<std::string>());
    else
      w.field("error", std::string(protocol::error_name(d.error_code)));
    w.end_object();
  }
  w.end_array();
}

void write_broker_configs(JsonWriter& w, client::InProcessClient& kafka, int32_t node_id) {
  protocol::DescribeConfigsRequest req;
  auto& r = req.resources.emplace_back();
  r.resource_type = 4;  // BROKER
  r.resource_name = std::to_string(node_id);
  r.configuration_keys = std::nullopt;  // all
  auto resp = kafka.call<protocol::DescribeConfigsResponse>(req, 4);
  w.key("configs").begin_array();
  for (const auto& result : resp.results) {
    client::throw_if_kafka_error(result.error_code, result.error_message);
    write_config_entries(w, result.configs);
  }
  w.end_array();
}

}  // namespace

std::string overview(ConsoleCall& call) {
  const auto& b = call.broker;
  JsonWriter w;
  w.begin_object().field("broker_id", b.info->node_id).field("cluster_id", b.info->cluster_id);
  w.field("version", b.version).field("uptime_ms", now_ms() - b.started_ms);
  w.field("write_enabled", call.write_enabled).field("auth", call.auth);
  w.key("listeners").begin_array();
  for (const auto& e : b.info->endpoints) {
    w.begin_object().field("name", e.listener_name).field("host", e.host).field("port", int64_t{e.port});
    w.field("security_protocol", b.security_protocol(e.listener_name)).end_object();
  }
  w.end_array().key("http_listeners").begin_array();
  for (const auto& h : b.http_listeners) w.value(h);
  w.end_array();
  write_log_dirs(w, call.kafka);
  write_broker_configs(w, call.kafka, b.info->node_id);
  return w.end_object().take();
}

std::string stats(ConsoleCall& call) {
  const metrics::Registry* registry = call.broker.metrics;
  auto total = [registry](const char* name) {
    uint64_t sum = 0;
    const auto* family = registry ? registry->find_counter(name) : nullptr;
    if (family) family->for_each([&](const metrics::LabelValues&, const metrics::Counter& c) { sum += c.value(); });
    return sum;
  };
  JsonWriter w;
  w.begin_object().field("time_ms", now_ms());
  w.field("bytes_in_total", total("kafka_server_brokertopicmetrics_bytesin_total"));
  w.field("bytes_out_total", total("kafka_server_brokertopicmetrics_bytesout_total"));
  w.field("messages_in_total", total("kafka_server_brokertopicmetrics_messagesin_total"));
  w.key("latency").begin_object();
  const auto* times = registry ? registry->find_histogram("kafka_network_requestmetrics_totaltimems") : nullptr;
  if (times) {
    times->for_each([&](const metrics::LabelValues& labels, const metrics::Histogram& h) {
      if (labels.empty() || (labels[0] != "Produce" && labels[0] != "Fetch")) return;
      const auto snap = h.snapshot();
      w.key(labels[0]).begin_object().key("le_ms").begin_array();
      for (double bound : h.upper_bounds()) w.value(bound);
      w.value("+Inf").end_array().key("counts").begin_array();
      for (uint64_t n : snap.cumulative) w.value(n);
      w.end_array().end_object();
    });
  }
  return w.end_object().end_object().take();
}

std::string clients(ConsoleCall& call) {
  JsonWriter w;
  w.begin_object().key("clients").begin_array();
  if (call.broker.telemetry_clients) {
    for (const auto& c : call.broker.telemetry_clients()) {
      w.begin_object().field("client_instance_id", c.instance_id).field("client_id", c.client_id);
      w.field("software_name", c.software_name).field("software_version", c.software_version);
      w.field("peer", c.peer).field("last_push_ms", c.last_push_ms);
      w.key("metrics").begin_array();
      for (const auto& [name, value] : c.metrics)
        w.begin_object().field("name", name).field("value", value).end_object();
      w.end_array().end_object();
    }
  }
  return w.end_array().end_object().take();
}

}  // namespace skiff::console
