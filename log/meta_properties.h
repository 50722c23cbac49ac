// meta.properties: identifies a log dir as belonging to this node and
// cluster, in Kafka's (KRaft, version 1) Java properties format:
//   #
//   #<comment>
//   cluster.id=<22-char base64 uuid>
//   directory.id=<22-char base64 uuid>
//   node.id=<int>
//   version=1
// Written durably on first start; verified (node.id, cluster.id) after.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "log/result.h"

namespace skiff::storage {

struct MetaProperties {
  int version = 1;
  std::string cluster_id;
  int32_t node_id = -1;
  std::string directory_id;
};

// nullopt if absent; std::runtime_error if malformed.
std::optional<MetaProperties> read_meta_properties(const std::filesystem::path& log_dir);
// An I/O Error carries the errno (ENOSPC/EDQUOT: the caller's disk-full check).
Result<void> write_meta_properties(const std::filesystem::path& log_dir, const MetaProperties& m);

}  // namespace skiff::storage
