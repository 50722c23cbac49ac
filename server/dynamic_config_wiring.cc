#include "server/dynamic_config_wiring.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "log/file_util.h"
#include "server/kafka_server.h"
#include "server/storage_config.h"

namespace skiff::server {
namespace fs = std::filesystem;

namespace {

fs::path config_file(const config::BrokerConfig& c) { return fs::path(c.log_dirs.at(0)) / kDynamicConfigFile; }

}  // namespace

std::unique_ptr<config::DynamicBrokerConfig> load_dynamic_config(const config::BrokerConfig& static_config) {
  auto dynamic = std::make_unique<config::DynamicBrokerConfig>(static_config);
  const auto path = config_file(static_config);
  std::string text;
  if (!storage::read_small_file(path, text)) {
    std::error_code ec;
    if (fs::exists(path, ec)) throw StartupError(fmt::format("cannot read {}", path.string()));
    return dynamic;
  }
  try {
    for (const auto& w : dynamic->load(text)) spdlog::warn("{}", w);
  } catch (const std::invalid_argument& e) {
    throw StartupError(fmt::format("{} is not a dynamic broker config file: {}", path.string(), e.what()));
  }
  auto v = dynamic->values();
  if (!v.broker.empty() || !v.cluster.empty())
    spdlog::info("dynamic broker configs from {}: {} per-broker, {} cluster default", path.string(), v.broker.size(),
                 v.cluster.size());
  return dynamic;
}

void wire_dynamic_config(config::DynamicBrokerConfig& dynamic, storage::LogManager& logs,
                         network::ConnectionQuotas& quotas) {
  const auto path = config_file(dynamic.static_config());
  dynamic.set_persist([path](const std::string& text) -> std::string {
    int rc = storage::write_file_durably(path, text);
    if (rc == 0) return {};
    spdlog::error("cannot write {}: {}", path.string(), std::strerror(rc));
    return fmt::format("cannot write {}: {}", path.string(), std::strerror(rc));
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
