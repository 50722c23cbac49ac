// The GROUP config resource (type 32, KIP-848) of DescribeConfigs,
// AlterConfigs and IncrementalAlterConfigs: what a group's configs are
// (every served key, for any group id, existing or not, as Kafka 4.4
// answers) and changing them (GroupCoordinator::alter_group_config validates,
// stores durably and applies).
//
// Threads: stateless functions over thread-safe services.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/admin/config_describer.h"
#include "api/admin/topic_config_change.h"

namespace skiff::api::admin {

std::vector<ConfigEntry> describe_group_configs(BrokerServices& services, const std::string& group_id,
                                                const std::optional<std::vector<std::string>>& keys = {});

ChangeResult alter_group_configs(BrokerServices& services, const std::string& group_id,
                                 const std::vector<ConfigChange>& changes, bool incremental, bool validate_only);

}  // namespace skiff::api::admin
