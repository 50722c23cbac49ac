// Maps the broker configuration onto the storage engine's: log dirs, node
// id, and the broker-level defaults of every topic config.
#pragma once

#include "config/broker_config.h"
#include "log/log_manager.h"

namespace skiff::server {

// Throws std::invalid_argument naming the key when storage rejects a value.
storage::LogManagerConfig make_log_manager_config(const config::BrokerConfig& config);

}  // namespace skiff::server
