// Wiring of dynamic broker configs (config/dynamic_broker_config.h) into the
// running broker: the values persisted in the first log dir are loaded at
// startup, and every later change is written there crash-safely (temp file,
// fsync, rename, fsync dir) and applied live to the log defaults every topic
// without an override inherits, to the connection quotas, to the thread
// pools (num.io.threads, num.network.threads) and to the log dir mover's rate.
//
// On disk: <first log dir>/skiff-dynamic-broker-config, the text form
// described in config/dynamic_broker_config.h.
//
// Threads: load at startup (main thread); the listeners run on the handler
// thread of the AlterConfigs request, serialised by DynamicBrokerConfig.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "config/dynamic_broker_config.h"
#include "log/log_manager.h"
#include "network/connection_quotas.h"
#include "network/socket_server.h"
#include "server/request_handler_pool.h"

namespace skiff::server {

inline constexpr const char* kDynamicConfigFile = "skiff-dynamic-broker-config";

// Throws StartupError when the file exists but cannot be read or parsed.
std::unique_ptr<config::DynamicBrokerConfig> load_dynamic_config(const config::BrokerConfig& static_config);

void wire_dynamic_config(config::DynamicBrokerConfig& dynamic, storage::LogManager& logs,
                         network::ConnectionQuotas& quotas);

// num.io.threads and num.network.threads, resized live. A change is refused
// as Kafka's DynamicThreadPool refuses it: below half or above twice the
// current count. `drain_timeout` bounds the drain of a removed Processor.
void wire_thread_pools(config::DynamicBrokerConfig& dynamic, network::SocketServer& sockets,
                       RequestHandlerPool& handlers, std::chrono::milliseconds drain_timeout);

// Kafka's DynamicThreadPool.validateReconfiguration message, or empty.
std::string check_thread_count(const std::string& key, int current, int next);

}  // namespace skiff::server
