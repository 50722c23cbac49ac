// TopicStore: durable topic metadata (name, topic id, partition count,
// per-topic config overrides), the single-node stand-in for Kafka's KRaft
// metadata log. One file, `skiff-topics`, in the first log dir; rewritten
// whole on every change (temp + fsync + rename + fsync dir).
//
// Text layout:
//   skiff-topics 1
//   topic <name> <topic id base64> <partition count>
//   config <name> <key> <value, percent-encoded>
// Threads: not synchronised; LogManager serialises calls.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

#include "common/uuid.h"
#include "log/result.h"

namespace skiff::storage {

struct TopicInfo {
  std::string name;
  Uuid topic_id;
  int32_t partitions = 0;
  std::map<std::string, std::string> overrides;  // per-topic config
};

class TopicStore {
 public:
  explicit TopicStore(std::filesystem::path file) : file_(std::move(file)) {}
  bool exists() const;
  // Throws std::runtime_error when malformed.
  std::map<std::string, TopicInfo> load() const;
  Result<void> save(const std::map<std::string, TopicInfo>& topics) const;  // an I/O Error carries the errno

 private:
  std::filesystem::path file_;
};

inline constexpr char kTopicStoreFile[] = "skiff-topics";

}  // namespace skiff::storage
