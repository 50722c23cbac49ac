#include "api/handlers/describe_log_dirs_handler.h"

#include <sys/statvfs.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "api/authorize.h"

namespace skiff::api {
namespace {

using protocol::DescribeLogDirsResponse;

// The future replicas (partitions moving into log dir `dir_index`) of `topic` asked for.
void add_futures(const std::vector<storage::FutureReplica>& futures, size_t dir_index, const std::string& topic,
                 const std::vector<int32_t>& parts, DescribeLogDirsResponse::DescribeLogDirsTopic& out) {
  for (const auto& f : futures) {
    if (f.dir_index != dir_index || f.tp.topic != topic) continue;
    if (std::find(parts.begin(), parts.end(), f.tp.partition) == parts.end()) continue;
    DescribeLogDirsResponse::DescribeLogDirsPartition part;
    part.partition_index = f.tp.partition;
    part.partition_size = static_cast<int64_t>(f.size_bytes);
    part.offset_lag = f.offset_lag;
    part.is_future_key = true;
    out.partitions.push_back(part);
  }
}

}  // namespace

// DESCRIBE on the cluster, else CLUSTER_AUTHORIZATION_FAILED and no dirs (KafkaApis).
void DescribeLogDirsHandler::handle(ApiRequest& request, protocol::DescribeLogDirsRequest& body, Responder& out) {
  if (!authorized_cluster(services_, request, AclOperation::kDescribe)) {
    out.send(error_response(body, ErrorCode::kClusterAuthorizationFailed));
    return;
  }
  // Which partitions: all (null topics) or those named.
  std::map<std::string, std::vector<int32_t>> wanted;
  if (body.topics) {
    for (const auto& t : *body.topics) wanted[t.topic] = t.partitions;
  } else {
    for (const auto& t : services_.logs.list_topics())
      for (int32_t p = 0; p < t.partitions; ++p) wanted[t.name].push_back(p);
  }
  DescribeLogDirsResponse resp;
  const auto futures = services_.logs.replica_mover().futures();
  size_t dir_index = 0;  // log_dirs() is config.log_dirs, in the same order
  for (const auto& dir : services_.config.log_dirs) {
    DescribeLogDirsResponse::DescribeLogDirsResult r;
    r.log_dir = std::filesystem::absolute(dir).lexically_normal().string();
    const auto norm_dir = std::filesystem::absolute(dir).lexically_normal();
    for (const auto& [topic, parts] : wanted) {
      DescribeLogDirsResponse::DescribeLogDirsTopic t;
      t.name = topic;
      for (int32_t p : parts) {
        auto log = services_.logs.get_log(topic, p);
        if (!log || std::filesystem::absolute(log->dir()).lexically_normal().parent_path() != norm_dir) continue;
        DescribeLogDirsResponse::DescribeLogDirsPartition part;
        part.partition_index = p;
        part.partition_size = static_cast<int64_t>(log->size_in_bytes());
        part.offset_lag = 0;
        t.partitions.push_back(part);
      }
      add_futures(futures, dir_index, topic, parts, t);
      if (!t.partitions.empty()) r.topics.push_back(std::move(t));
    }
    ++dir_index;
    if (request.api_version() >= 4) {
      struct statvfs st {};
      if (statvfs(dir.c_str(), &st) == 0) {
        r.total_bytes = static_cast<int64_t>(st.f_blocks) * static_cast<int64_t>(st.f_frsize);
        r.usable_bytes = static_cast<int64_t>(st.f_bavail) * static_cast<int64_t>(st.f_frsize);
      }
    }
    resp.results.push_back(std::move(r));
  }
  out.send(resp);
}

DescribeLogDirsResponse DescribeLogDirsHandler::error_response(const protocol::DescribeLogDirsRequest&,
                                                               ErrorCode error) {
  DescribeLogDirsResponse r;
  r.error_code = code(error);
  return r;
}

}  // namespace skiff::api
