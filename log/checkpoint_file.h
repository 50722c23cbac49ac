// Kafka's offset checkpoint files (recovery-point-offset-checkpoint,
// log-start-offset-checkpoint), one per log dir. Text layout:
//   0                      <- version
//   <N>                    <- number of entries
//   <topic> <partition> <offset>   (N lines)
// Written durably (temp + fsync + rename + fsync dir). Any thread.
#pragma once

#include <compare>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

#include "log/result.h"

namespace skiff::storage {

struct TopicPartition {
  std::string topic;
  int32_t partition = 0;
  auto operator<=>(const TopicPartition&) const = default;
  std::string dir_name() const { return topic + "-" + std::to_string(partition); }
};

inline constexpr char kRecoveryPointCheckpointFile[] = "recovery-point-offset-checkpoint";
inline constexpr char kLogStartOffsetCheckpointFile[] = "log-start-offset-checkpoint";
inline constexpr char kCleanShutdownFile[] = ".kafka_cleanshutdown";

// Missing file: empty map. Malformed: std::runtime_error.
std::map<TopicPartition, int64_t> read_offset_checkpoint(const std::filesystem::path& path);
// An I/O Error carries the errno.
Result<void> write_offset_checkpoint(const std::filesystem::path& path,
                                     const std::map<TopicPartition, int64_t>& offsets);

}  // namespace skiff::storage
