// The API subsystem's logger.
#pragma once

#include "common/subsystem_logger.h"

namespace skiff::api {

inline spdlog::logger& api_log() {
  static const std::shared_ptr<spdlog::logger> logger = subsystem_logger("api");
  return *logger;
}

}  // namespace skiff::api
