#include "server/logging.h"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace skiff::server {

void setup_logging(const std::string& level, const std::string& file) {
  std::vector<spdlog::sink_ptr> sinks;
  sinks.push_back(std::make_shared<spdlog::sinks::stdout_sink_mt>());
  if (!file.empty()) sinks.push_back(std::make_shared<spdlog::sinks::basic_file_sink_mt>(file));
  auto lvl = spdlog::level::from_str(level);
  for (const char* name : {"server", "network", "api", "storage"}) {
    spdlog::drop(name);
    auto logger = std::make_shared<spdlog::logger>(name, sinks.begin(), sinks.end());
    logger->set_level(lvl);
    logger->set_pattern("[%Y-%m-%d %H:%M:%S.%e] %^%l%$ %n: %v");
    logger->flush_on(spdlog::level::warn);
    spdlog::register_logger(logger);
    if (std::string(name) == "server") spdlog::set_default_logger(logger);
  }
  // stdout may be a pipe (containers, tests): flush at least every second.
  spdlog::flush_every(std::chrono::seconds(1));
}

}  // namespace skiff::server
