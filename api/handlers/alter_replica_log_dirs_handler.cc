#include "api/handlers/alter_replica_log_dirs_handler.h"

#include <unistd.h>

#include <filesystem>
#include <map>
#include <optional>

#include "api/api_log.h"
#include "api/authorize.h"
#include "api/topics.h"
#include "common/log_escape.h"

namespace skiff::api {
namespace {

namespace fs = std::filesystem;
using protocol::AlterReplicaLogDirsRequest;
using protocol::AlterReplicaLogDirsResponse;

// A path as Kafka compares them (File.getAbsolutePath), without a trailing '/'.
std::string absolute_path(const std::string& p) {
  std::error_code ec;
  std::string s = fs::absolute(p, ec).lexically_normal().string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

// The index in log.dirs of `path`, if it is one of them.
std::optional<size_t> find_dir(const std::vector<fs::path>& dirs, const std::string& path) {
  const std::string want = absolute_path(path);
  for (size_t i = 0; i < dirs.size(); ++i)
    if (absolute_path(dirs[i].string()) == want) return i;
  return std::nullopt;
}

// Results grouped per topic, each partition once (the last request for it wins, as in Kafka's map).
using Outcomes = std::map<std::string, std::map<int32_t, ErrorCode>>;

AlterReplicaLogDirsResponse to_response(const Outcomes& outcomes) {
  AlterReplicaLogDirsResponse resp;
  for (const auto& [topic, parts] : outcomes) {
    AlterReplicaLogDirsResponse::AlterReplicaLogDirTopicResult t;
    t.topic_name = topic;
    for (const auto& [p, e] : parts) {
      AlterReplicaLogDirsResponse::AlterReplicaLogDirPartitionResult r;
      r.partition_index = p;
      r.error_code = code(e);
      t.partitions.push_back(r);
    }
    resp.results.push_back(std::move(t));
  }
  return resp;
}

}  // namespace

// ALTER on the cluster, else CLUSTER_AUTHORIZATION_FAILED for every partition (KafkaApis).
void AlterReplicaLogDirsHandler::handle(ApiRequest& request, AlterReplicaLogDirsRequest& body, Responder& out) {
  if (!authorized_cluster(services_, request, AclOperation::kAlter)) {
    out.send(error_response(body, ErrorCode::kClusterAuthorizationFailed));
    return;
  }
  const auto& dirs = services_.logs.log_dirs();
  Outcomes outcomes;
  for (const auto& d : body.dirs) {
    const auto dest = find_dir(dirs, d.path);
    const bool usable = dest && ::access(dirs[*dest].c_str(), W_OK | X_OK) == 0;
    if (!dest) api_log().warn("AlterReplicaLogDirs: {} is not one of log.dirs", escaped(d.path));
    for (const auto& t : d.topics) {
      for (int32_t p : t.partitions) {
        ErrorCode e = ErrorCode::kNone;
        if (!dest)
          e = ErrorCode::kLogDirNotFound;
        else if (!usable)
          e = ErrorCode::kKafkaStorageError;
        else
          e = to_error_code(services_.logs.replica_mover().request({t.name, p}, *dest));
        outcomes[t.name][p] = e;
      }
    }
  }
  out.send(to_response(outcomes));
}

AlterReplicaLogDirsResponse AlterReplicaLogDirsHandler::error_response(const AlterReplicaLogDirsRequest& body,
                                                                       ErrorCode error) {
  Outcomes outcomes;
  for (const auto& d : body.dirs)
    for (const auto& t : d.topics)
      for (int32_t p : t.partitions) outcomes[t.name][p] = error;
  return to_response(outcomes);
}

}  // namespace skiff::api
