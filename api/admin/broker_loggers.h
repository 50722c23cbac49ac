// The BROKER_LOGGER resource, as `kafka-configs --entity-type broker-loggers`
// uses it: DescribeConfigs lists "root" and each subsystem logger ("api",
// "network", "server", "storage") with its level in log4j's names;
// IncrementalAlterConfigs SET changes a level live (SET root: every logger
// without a level of its own), DELETE gives a logger back the root's level.
// Errors and messages as Kafka 4.4. Levels are not persisted (as in Kafka).
//
// Threads: thread-safe (one mutex around the levels set here).
#pragma once

#include <string>
#include <vector>

#include "api/admin/config_describer.h"
#include "api/admin/topic_config_change.h"

namespace skiff::api::admin {

std::vector<ConfigEntry> describe_loggers(BrokerServices& services,
                                          const std::optional<std::vector<std::string>>& keys);

ChangeResult alter_loggers(BrokerServices& services, const std::vector<ConfigChange>& changes, bool incremental,
                           bool validate_only);

}  // namespace skiff::api::admin
