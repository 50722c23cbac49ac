// The Schema Registry's logger (subsystem "schema-registry"): its topic,
// its HTTP listener. Client strings reach it escaped (common/log_escape.h).
#pragma once

#include "common/subsystem_logger.h"

namespace skiff::schemareg {

inline spdlog::logger& registry_log() {
  static const std::shared_ptr<spdlog::logger> logger = subsystem_logger("schema-registry");
  return *logger;
}

}  // namespace skiff::schemareg
