// The CLIENT_METRICS config resource (type 16, KIP-714) of DescribeConfigs,
// AlterConfigs and IncrementalAlterConfigs: a subscription's three keys
// (api/telemetry/client_metrics_subscriptions.h), set ones with source
// CLIENT_METRICS_CONFIG and the rest with their defaults, as Kafka 4.4's
// ConfigHelper answers (for any name, existing or not); and changing them.
// Deleting every key deletes the subscription. As in Kafka (whose controller
// knows only BROKER and TOPIC keys' types), APPEND and SUBTRACT are refused
// with INVALID_CONFIG.
//
// Threads: stateless functions over thread-safe services.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/admin/config_describer.h"
#include "api/admin/topic_config_change.h"

namespace skiff::api::admin {

// nullopt: the name is empty (INVALID_REQUEST, `message` says so).
std::optional<std::vector<ConfigEntry>> describe_client_metrics(BrokerServices& services, const std::string& name,
                                                                const std::optional<std::vector<std::string>>& keys,
                                                                std::string& message);

ChangeResult alter_client_metrics(BrokerServices& services, const std::string& name,
                                  const std::vector<ConfigChange>& changes, bool incremental, bool validate_only);

}  // namespace skiff::api::admin
