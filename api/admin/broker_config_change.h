// AlterConfigs / IncrementalAlterConfigs on the BROKER resource: this node's
// id (per-broker values) or "" (the cluster default), through
// config::DynamicBrokerConfig, which validates, persists and applies live.
// Errors as Kafka 4.4 answers them: INVALID_REQUEST "Cannot update these
// configs dynamically: [key]" for a key that is not dynamic (in Skiff), and
// "Invalid value V for configuration K: ..." for a bad value.
//
// Threads: stateless; DynamicBrokerConfig serialises the changes.
#pragma once

#include <string>
#include <vector>

#include "api/admin/topic_config_change.h"

namespace skiff::api::admin {

ChangeResult alter_broker(BrokerServices& services, const std::string& resource_name,
                          const std::vector<ConfigChange>& changes, bool incremental, bool validate_only);

}  // namespace skiff::api::admin
