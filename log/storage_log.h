// The storage subsystem's logger ("storage"): every line log/ writes goes
// through it, so its level is set on its own (`kafka-configs --entity-type
// broker-loggers --add-config storage=DEBUG`) and lines say where they come
// from. Print an errno as std::strerror text, never as a bare number.
// Thread-safe (spdlog loggers are).
#pragma once

#include "common/subsystem_logger.h"

namespace skiff::storage {

inline spdlog::logger& storage_log() {
  static const std::shared_ptr<spdlog::logger> logger = subsystem_logger("storage");
  return *logger;
}

}  // namespace skiff::storage
