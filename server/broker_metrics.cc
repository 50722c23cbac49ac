#include "server/broker_metrics.h"

#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/wall_clock.h"
#include "server/version.h"

namespace skiff::server {
namespace {

using metrics::Exposition;

// /proc/self/statm: size and resident pages.
std::pair<double, double> memory_bytes() {
  std::ifstream statm("/proc/self/statm");
  double size = 0, resident = 0;
  statm >> size >> resident;
  const double page = static_cast<double>(sysconf(_SC_PAGESIZE));
  return {size * page, resident * page};
}

double count_entries(const char* dir) {
  std::error_code ec;
  double n = 0;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) ++n;
  return n;
}

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto secs = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
  return secs(u.ru_utime) + secs(u.ru_stime);
}

void gauge(Exposition& out, const char* name, const char* help, double value, const char* type = "gauge") {
  out.family(name, type, help);
  out.sample(name, {}, {}, value);
}

}  // namespace

void collect_process(Exposition& out, double start_time_seconds) {
  const auto [virt, resident] = memory_bytes();
  rlimit nofile{};
  getrlimit(RLIMIT_NOFILE, &nofile);
  gauge(out, "process_resident_memory_bytes", "Resident memory size in bytes.", resident);
  gauge(out, "process_virtual_memory_bytes", "Virtual memory size in bytes.", virt);
  gauge(out, "process_open_fds", "Number of open file descriptors.", count_entries("/proc/self/fd"));
  gauge(out, "process_max_fds", "Maximum number of open file descriptors.", static_cast<double>(nofile.rlim_cur));
  gauge(out, "process_threads", "Number of OS threads in the process.", count_entries("/proc/self/task"));
  gauge(out, "process_cpu_seconds_total", "Total user and system CPU time spent in seconds.", cpu_seconds(), "counter");
  gauge(out, "process_start_time_seconds", "Start time of the process since unix epoch in seconds.",
        start_time_seconds);
  out.family("skiff_build_info", "gauge", "Skiff's version; always 1.");
  out.sample("skiff_build_info", {"version"}, {kVersion}, 1);
}

void collect_logs(Exposition& out, const storage::LogManager& logs, bool per_partition_series) {
  struct Row {
    std::string topic, partition;
    double size, start, end;
  };
  std::vector<Row> rows;
  for (const auto& t : logs.list_topics()) {
    double topic_size = 0;
    for (int32_t p = 0; p < t.partitions; ++p) {
      auto log = logs.get_log(t.name, p);
      if (!log) continue;
      const auto size = static_cast<double>(log->size_in_bytes());
      topic_size += size;
      if (per_partition_series)
        rows.push_back({t.name, std::to_string(p), size, static_cast<double>(log->log_start_offset().value),
                        static_cast<double>(log->log_end_offset().value)});
    }
    if (!per_partition_series) rows.push_back({t.name, "", topic_size, 0, 0});
  }
  const std::vector<std::string> by_partition{"topic", "partition"}, by_topic{"topic"};
  const auto& names = per_partition_series ? by_partition : by_topic;
  auto values = [&](const Row& r) {
    return per_partition_series ? metrics::LabelValues{r.topic, r.partition} : metrics::LabelValues{r.topic};
  };
  out.family("kafka_log_log_size", "gauge",
             "Bytes of the partition's log on disk (per topic when per-partition "
             "series are off).");
  for (const auto& r : rows) out.sample("kafka_log_log_size", names, values(r), r.size);
  if (!per_partition_series) return;
  out.family("kafka_log_log_logstartoffset", "gauge", "The partition's log start offset.");
  for (const auto& r : rows) out.sample("kafka_log_log_logstartoffset", names, values(r), r.start);
  out.family("kafka_log_log_logendoffset", "gauge", "The partition's log end offset.");
  for (const auto& r : rows) out.sample("kafka_log_log_logendoffset", names, values(r), r.end);
}

void collect_network(Exposition& out, const network::RequestChannel& channel, const network::SocketServer& sockets,
                     const RequestHandlerPool& handlers, api::ClientSoftware& software) {
  const network::ConnectionQuotas& quotas = *sockets.quotas();
  gauge(out, "kafka_network_requestchannel_requestqueuesize", "Requests waiting for a handler thread.",
        static_cast<double>(channel.size()));
  gauge(out, "skiff_request_handler_threads", "Request handler threads (num.io.threads).",
        static_cast<double>(handlers.size()));
  gauge(out, "skiff_request_handler_idle_seconds_total",
        "Time the handler threads waited for a request, summed over threads; its rate over "
        "skiff_request_handler_threads is Kafka's RequestHandlerAvgIdlePercent.",
        handlers.idle_seconds(), "counter");
  const auto processors = sockets.processor_cpu_seconds();
  gauge(out, "skiff_network_processor_threads", "Network Processor threads (num.network.threads).",
        static_cast<double>(processors.size()));
  out.family("skiff_network_processor_busy_seconds_total", "counter",
             "CPU time of a network Processor's thread; the rest of the time it waits in epoll, so "
             "1 - rate(this) is its idle ratio (Kafka's NetworkProcessorAvgIdlePercent, per Processor).");
  for (const auto& [id, seconds] : processors)
    out.sample("skiff_network_processor_busy_seconds_total", {"processor"}, {std::to_string(id)}, seconds);
  const auto listeners = quotas.by_listener();
  const std::vector<std::string> label{"listener"};
  out.family("kafka_server_socket_server_metrics_connection_count", "gauge", "Open connections, per listener.");
  for (const auto& [name, c] : listeners)
    out.sample("kafka_server_socket_server_metrics_connection_count", label, {name}, c.open);
  out.family("kafka_server_socket_server_metrics_connection_creation_total", "counter",
             "Connections accepted since start, per listener.");
  for (const auto& [name, c] : listeners)
    out.sample("kafka_server_socket_server_metrics_connection_creation_total", label, {name},
               static_cast<double>(c.accepted));
  gauge(out, "skiff_connection_rate_throttled_total",
        "Connections held then closed for exceeding their IP's connection_creation_rate quota.",
        static_cast<double>(quotas.rate_throttled()), "counter");
  const std::vector<std::string> software_labels{"client_software_name", "client_software_version", "listener"};
  out.family("kafka_server_socket_server_metrics_connections", "gauge",
             "Open connections per client software (KIP-511, from ApiVersions v3+) and listener.");
  for (const auto& [key, n] : software.counts())
    out.sample("kafka_server_socket_server_metrics_connections", software_labels, {key.name, key.version, key.listener},
               n);
}

api::ClientSoftware& BrokerMetrics::client_software(const std::shared_ptr<const network::ConnectionQuotas>& quotas) {
  if (!software_)
    software_ = std::make_unique<api::ClientSoftware>([quotas](uint64_t id) { return quotas->is_open(id); });
  return *software_;
}

BrokerMetrics::BrokerMetrics(const storage::LogManager& logs, bool per_partition_series, bool request_metrics) {
  if (request_metrics) {
    requests_ = std::make_unique<RequestMetrics>(registry_);
    topics_ = std::make_unique<api::TopicMetrics>(registry_);
  }
  const double start = static_cast<double>(wall_clock_ms()) / 1000.0;
  registry_.add_collector([start](Exposition& out) { collect_process(out, start); });
  registry_.add_collector(
      [&logs, per_partition_series](Exposition& out) { collect_logs(out, logs, per_partition_series); });
}

}  // namespace skiff::server
