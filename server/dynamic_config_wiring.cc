#include "server/dynamic_config_wiring.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "common/file_fields.h"
#include "server/kafka_server.h"
#include "server/storage_config.h"

namespace skiff::server {
std::vector<std::string> encode_dynamic_values(const config::DynamicValues& values) {
  std::vector<std::string> records;
  for (const auto* scope : {&values.broker, &values.cluster}) {
    for (const auto& [key, value] : *scope) {
      std::string r(1, static_cast<char>(scope == &values.broker ? 0 : 1));
      put_string_field(r, key);
      put_string_field(r, value);
      records.push_back(std::move(r));
    }
  }
  return records;
}

config::DynamicValues decode_dynamic_values(const std::vector<std::string>& records) {
  config::DynamicValues values;
  for (const auto& record : records) {
    FieldReader in(record);
    const int8_t scope = in.int8();
    if (scope != 0 && scope != 1) throw std::runtime_error(fmt::format("unknown scope {}", scope));
    std::string key = in.string();
    (scope == 0 ? values.broker : values.cluster)[key] = in.string();
    if (!in.done()) throw std::runtime_error("bytes after the value of " + key);
  }
  return values;
}

std::unique_ptr<config::DynamicBrokerConfig> load_dynamic_config(const config::BrokerConfig& static_config,
                                                                 metadata::Namespace& ns) {
  auto dynamic = std::make_unique<config::DynamicBrokerConfig>(static_config);
  config::DynamicValues stored;
  try {
    stored = ns.load(decode_dynamic_values);
  } catch (const metadata::Failure& e) {
    throw StartupError(e.what());  // main's startup refusal, as for every bad config
  }
  for (const auto& w : dynamic->load(stored)) spdlog::warn("{}", w);
  auto v = dynamic->values();
  if (!v.broker.empty() || !v.cluster.empty())
    spdlog::info("dynamic broker configs from {}: {} per-broker, {} cluster default", ns.file().string(),
                 v.broker.size(), v.cluster.size());
  return dynamic;
}

void wire_dynamic_config(config::DynamicBrokerConfig& dynamic, metadata::Namespace& ns, storage::LogManager& logs,
                         network::ConnectionQuotas& quotas) {
  dynamic.set_persist([&ns](const config::DynamicValues& values) -> std::string {
    auto r = ns.write(encode_dynamic_values(values));  // the store logs a failure
    return r ? std::string() : r.error().message;
  });
  dynamic.add_listener([&logs](const config::BrokerConfig& next, bool apply) -> std::string {
    storage::LogManagerConfig lc;
    try {
      lc = make_log_manager_config(next);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    if (auto r = logs.set_defaults(lc.defaults, !apply); !r) return r.error().message;
    return {};
  });
  dynamic.add_listener([&logs](const config::BrokerConfig& next, bool apply) -> std::string {
    if (apply) logs.replica_mover().set_rate(next.replica_alter_log_dirs_io_max_bytes_per_second);
    return {};
  });
  dynamic.add_listener([&quotas](const config::BrokerConfig& next, bool apply) -> std::string {
    if (apply)
      quotas.reconfigure(next.max_connections, next.max_connections_per_ip, next.max_connections_per_ip_overrides);
    return {};
  });
}

std::string check_thread_count(const std::string& key, int current, int next) {
  if (next == current) return {};
  const auto failed = fmt::format("Dynamic thread count update validation failed for {}={}", key, next);
  if (next <= 0) return failed + ", value should be at least 1";
  if (next < current / 2) return fmt::format("{}, value should be at least half the current value {}", failed, current);
  if (next > current * 2)
    return fmt::format("{}, value should not be greater than double the current value {}", failed, current);
  return {};
}

void wire_thread_pools(config::DynamicBrokerConfig& dynamic, network::SocketServer& sockets,
                       RequestHandlerPool& handlers, std::chrono::milliseconds drain_timeout) {
  dynamic.add_listener(
      [&sockets, &handlers, drain_timeout](const config::BrokerConfig& next, bool apply) -> std::string {
        const int io = handlers.size(), net = sockets.processor_count();
        if (auto why = check_thread_count("num.io.threads", io, next.num_io_threads); !why.empty()) return why;
        if (auto why = check_thread_count("num.network.threads", net, next.num_network_threads); !why.empty())
          return why;
        if (!apply) return {};
        if (next.num_io_threads != io) {
          handlers.resize(next.num_io_threads);
          spdlog::info("num.io.threads: {} -> {} request handler threads", io, next.num_io_threads);
        }
        if (next.num_network_threads != net) {
          if (sockets.resize_processors(next.num_network_threads, drain_timeout))
            spdlog::info("num.network.threads: {} -> {} processors", net, next.num_network_threads);
          else
            spdlog::error("num.network.threads: cannot resize to {} (processor ids used up); keeping {}",
                          next.num_network_threads, net);
        }
        return {};
      });
}

}  // namespace skiff::server
