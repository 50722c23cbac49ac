// One spdlog logger per subsystem ("network", "api", "storage", "server").
// The server configures their sinks and levels at startup (server/logging);
// a library used on its own (tests) gets a clone of the default logger.
#pragma once

#include <spdlog/spdlog.h>

#include <memory>
#include <string>

namespace skiff {

inline std::shared_ptr<spdlog::logger> subsystem_logger(const std::string& name) {
  if (auto l = spdlog::get(name)) return l;
  auto l = spdlog::default_logger()->clone(name);
  try {
    spdlog::register_logger(l);
  } catch (const spdlog::spdlog_ex&) {  // another thread registered it first
    if (auto existing = spdlog::get(name)) return existing;
  }
  return l;
}

}  // namespace skiff
