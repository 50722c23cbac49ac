// Wiring of dynamic broker configs (config/dynamic_broker_config.h) into the
// running broker: the values stored in the metadata store are loaded at
// startup, and every later change is stored there crash-safely and applied
// live to the log defaults every topic without an override inherits, to the
// connection quotas, to the thread pools (num.io.threads,
// num.network.threads) and to the log dir mover's rate.
//
// Stored in the "dynamic-broker-config" namespace (metadata/metadata_store.h),
// one record per value, version 1 (strings int32-length-prefixed):
//   scope int8 (0: this broker, 1: the cluster default) | key string | value string
//
// Threads: load at startup (main thread); the listeners run on the handler
// thread of the AlterConfigs request, serialised by DynamicBrokerConfig.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "config/dynamic_broker_config.h"
#include "log/log_manager.h"
#include "metadata/metadata_store.h"
#include "network/connection_quotas.h"
#include "network/socket_server.h"
#include "server/request_handler_pool.h"

namespace skiff::server {

// Throws StartupError when the stored values cannot be read or parsed.
std::unique_ptr<config::DynamicBrokerConfig> load_dynamic_config(const config::BrokerConfig& static_config,
                                                                 metadata::Namespace& ns);

void wire_dynamic_config(config::DynamicBrokerConfig& dynamic, metadata::Namespace& ns, storage::LogManager& logs,
                         network::ConnectionQuotas& quotas);

// The values as the namespace's records, and back (throws std::runtime_error).
std::vector<std::string> encode_dynamic_values(const config::DynamicValues& values);
config::DynamicValues decode_dynamic_values(const std::vector<std::string>& records);

// num.io.threads and num.network.threads, resized live. A change is refused
// as Kafka's DynamicThreadPool refuses it: below half or above twice the
// current count. `drain_timeout` bounds the drain of a removed Processor.
void wire_thread_pools(config::DynamicBrokerConfig& dynamic, network::SocketServer& sockets,
                       RequestHandlerPool& handlers, std::chrono::milliseconds drain_timeout);

// Kafka's DynamicThreadPool.validateReconfiguration message, or empty.
std::string check_thread_count(const std::string& key, int current, int next);

}  // namespace skiff::server
