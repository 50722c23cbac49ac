#include "api/admin/broker_loggers.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "api/api_log.h"
#include "common/subsystem_logger.h"

namespace skiff::api::admin {
namespace {

constexpr const char* kRoot = "root";
const std::vector<std::string> kLoggers = {"api", "coordinator", "network", "server", "storage"};
// Kafka's LogLevelConfig.VALID_LOG_LEVELS, with spdlog's equivalent.
const std::map<std::string, spdlog::level::level_enum> kLevels = {
    {"DEBUG", spdlog::level::debug}, {"ERROR", spdlog::level::err},   {"FATAL", spdlog::level::critical},
    {"INFO", spdlog::level::info},   {"TRACE", spdlog::level::trace}, {"WARN", spdlog::level::warn}};

std::string level_name(spdlog::level::level_enum l) {
  for (const auto& [name, level] : kLevels)
    if (level == l) return name;
  return "OFF";
}

// The root level and the loggers given a level of their own.
struct Levels {
  std::mutex mu;
  bool initialised = false;
  spdlog::level::level_enum root = spdlog::level::info;
  std::map<std::string, spdlog::level::level_enum> own;
};

Levels& levels(const BrokerServices& services) {
  static Levels l;
  std::lock_guard lk(l.mu);
  if (!l.initialised) {
    l.root = spdlog::level::from_str(services.config.log_level);
    l.initialised = true;
  }
  return l;
}

std::optional<ChangeResult> check(const ConfigChange& c) {
  if (c.name != kRoot && std::find(kLoggers.begin(), kLoggers.end(), c.name) == kLoggers.end())
    return change_error(ErrorCode::kInvalidConfig, "Logger " + c.name + " does not exist!");
  switch (c.op) {
    case AlterOp::kSet:
      if (!c.value || !kLevels.count(*c.value))
        return change_error(ErrorCode::kInvalidConfig, "Cannot set the log level of " + c.name + " to " +
                                                           c.value.value_or("null") +
                                                           " as it is not a supported log level. Valid log levels are "
                                                           "DEBUG, ERROR, FATAL, INFO, TRACE, WARN");
      return std::nullopt;
    case AlterOp::kDelete:
      if (c.name == kRoot)
        return change_error(ErrorCode::kInvalidRequest, "Removing the log level of the root logger is not allowed");
      return std::nullopt;
    case AlterOp::kAppend:
    case AlterOp::kSubtract:
      return change_error(ErrorCode::kInvalidRequest, std::string(c.op == AlterOp::kAppend ? "APPEND" : "SUBTRACT") +
                                                          " operation is not allowed for the BROKER_LOGGER resource");
  }
  return change_error(ErrorCode::kInvalidRequest, "Unknown config operation " + std::to_string(static_cast<int>(c.op)));
}

}  // namespace

std::vector<ConfigEntry> describe_loggers(BrokerServices& services,
                                          const std::optional<std::vector<std::string>>& keys) {
  auto& l = levels(services);
  std::vector<std::string> names = kLoggers;
  names.push_back(kRoot);
  std::sort(names.begin(), names.end());
  std::vector<ConfigEntry> out;
  std::lock_guard lk(l.mu);
  for (const auto& name : names) {
    if (keys && !keys->empty() && std::find(keys->begin(), keys->end(), name) == keys->end()) continue;
    ConfigEntry e;
    e.name = name;
    e.value = level_name(name == kRoot ? l.root : subsystem_logger(name)->level());
    e.source = ConfigSource::kDynamicBrokerLoggerConfig;
    e.type = ConfigType::kString;
    out.push_back(std::move(e));
  }
  return out;
}

ChangeResult alter_loggers(BrokerServices& services, const std::vector<ConfigChange>& changes, bool incremental,
                           bool validate_only) {
  if (!incremental)
    return change_error(ErrorCode::kInvalidRequest,
                        "AlterConfigs is deprecated and does not support the resource type BROKER_LOGGER");
  for (const auto& c : changes)
    if (auto r = check(c)) return *r;
  if (validate_only) return {};
  auto& l = levels(services);
  std::lock_guard lk(l.mu);
  for (const auto& c : changes) {
    if (c.name == kRoot)
      l.root = kLevels.at(*c.value);
    else if (c.op == AlterOp::kSet)
      l.own[c.name] = kLevels.at(*c.value);
    else
      l.own.erase(c.name);
  }
  for (const auto& name : kLoggers) {
    auto it = l.own.find(name);
    subsystem_logger(name)->set_level(it != l.own.end() ? it->second : l.root);
  }
  api_log().info("logger levels changed: root {}, {} logger(s) with a level of their own", level_name(l.root),
                 l.own.size());
  return {};
}

}  // namespace skiff::api::admin
