// The network subsystem's logger ("network"); the server configures its sinks.
#pragma once

#include <spdlog/spdlog.h>

namespace skiff::network {

inline spdlog::logger& net_log() {
  static std::shared_ptr<spdlog::logger> logger = [] {
    if (auto l = spdlog::get("network")) return l;
    auto l = spdlog::default_logger()->clone("network");
    spdlog::register_logger(l);
    return l;
  }();
  return *logger;
}

}  // namespace skiff::network
