// Broker logging: one spdlog logger per subsystem ("server", "network",
// "api", "storage"), all writing to stdout and optionally to a file.
#pragma once

#include <string>

namespace skiff::server {

// Configures the sinks and level of every subsystem logger. Call once, early,
// before any other thread starts. Throws spdlog::spdlog_ex on a bad file.
void setup_logging(const std::string& level, const std::string& file);

}  // namespace skiff::server
