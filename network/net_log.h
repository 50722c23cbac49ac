// The network subsystem's logger.
#pragma once

#include "common/subsystem_logger.h"

namespace skiff::network {

inline spdlog::logger& net_log() {
  static const std::shared_ptr<spdlog::logger> logger = subsystem_logger("network");
  return *logger;
}

}  // namespace skiff::network
