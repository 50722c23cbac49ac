// The coordinators' logger (subsystem "coordinator": the group and the
// transaction coordinators, their internal topics and timers).
#pragma once

#include "common/subsystem_logger.h"

namespace skiff::coordinator {

inline spdlog::logger& log() {
  static const std::shared_ptr<spdlog::logger> logger = subsystem_logger("coordinator");
  return *logger;
}

}  // namespace skiff::coordinator
