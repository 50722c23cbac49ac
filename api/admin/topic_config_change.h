// Applying AlterConfigs / IncrementalAlterConfigs to one resource: topic
// overrides are validated, persisted and applied live through
// LogManager::alter_topic_config; broker configs go to alter_broker
// (broker_config_change.h), logger levels to alter_loggers (broker_loggers.h).
//
// Threads: stateless; LogManager serialises the changes themselves.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "api/broker_services.h"
#include "protocol/error_codes.h"

namespace skiff::api::admin {

struct ChangeResult {
  ErrorCode error = ErrorCode::kNone;
  std::optional<std::string> message;
};
inline ChangeResult change_error(ErrorCode e, std::string message) { return {e, std::move(message)}; }

// Kafka's AlterConfigOp.OpType ids.
enum class AlterOp : int8_t { kSet = 0, kDelete = 1, kAppend = 2, kSubtract = 3 };

struct ConfigChange {
  std::string name;
  AlterOp op = AlterOp::kSet;
  std::optional<std::string> value;
};

// Tiered storage's topic rules, which need the broker's side (Kafka's
// LogConfig.validate with remote.log.storage.system.enable, the broker's
// retention defaults and the topic's config before an alter): checked for a
// topic whose overrides become `overrides` (`existing`: before an alter;
// empty for a creation). With the system disabled and no remote storage in
// `existing`, these are exactly the checks LogManager makes itself, so they
// are left to it (and its order of errors kept): success.
ChangeResult check_topic_configs_in_context(BrokerServices& services,
                                            const std::map<std::string, std::string>& overrides,
                                            const std::map<std::string, std::string>& existing);

// incremental=false: `changes` (all kSet) replace every override (AlterConfigs).
ChangeResult alter_resource(BrokerServices& services, int8_t resource_type, const std::string& resource_name,
                            const std::vector<ConfigChange>& changes, bool incremental, bool validate_only);

}  // namespace skiff::api::admin
