// The remote log manager's logger ("remote" in the broker's log lines). Any thread.
#pragma once

#include <fmt/format.h>

#include <memory>
#include <string>

#include "common/log_escape.h"
#include "common/subsystem_logger.h"
#include "remote/metadata/segment_metadata.h"

namespace skiff::remote {

inline spdlog::logger& rlm_log() {
  static const std::shared_ptr<spdlog::logger> logger = subsystem_logger("remote");
  return *logger;
}

// "topic-3" for log lines, the topic name escaped.
inline std::string partition_name(const TopicIdPartition& tp) {
  return fmt::format("{}-{}", escape_for_log(tp.topic), tp.partition);
}

}  // namespace skiff::remote
