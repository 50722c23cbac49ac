// RemoteLogManager's expiration and sweep passes: remote retention (Kafka's
// RLMExpirationTask), copies and deletes left part way, and the remote data
// of deleted topics or of topics that turned remote storage off with
// remote.log.delete.on.disable. Every delete is DELETE_SEGMENT_STARTED
// (durable) -> the store's delete (idempotent) -> DELETE_SEGMENT_FINISHED, so
// a crash anywhere leaves a state the next pass finishes.
#include <fmt/format.h>

#include "common/log_escape.h"
#include "remote/manager/remote_log_manager.h"
#include "remote/manager/rlm_log.h"

namespace skiff::remote {

namespace {

// Kafka's three reasons, checked oldest segment first.
struct RetentionCheck {
  int64_t log_start = 0;
  int64_t retention_ms = -1;
  int64_t retention_bytes = -1;
  int64_t total_bytes = 0;  // remote finished + local-only
  int64_t now_ms = 0;

  bool expired(const RemoteLogSegmentMetadata& s) const {
    if (s.end_offset < log_start) return true;
    if (retention_ms >= 0 && s.max_timestamp_ms >= 0 && s.max_timestamp_ms < now_ms - retention_ms) return true;
    return retention_bytes >= 0 && total_bytes - s.segment_size_in_bytes >= retention_bytes;
  }
};

}  // namespace

bool RemoteLogManager::delete_segment(const RemoteLogSegmentMetadata& segment, int64_t now_ms) {
  const auto& tp = segment.id.partition;
  if (auto r = metadata_.update_segment(segment.id, SegmentState::kDeleteStarted, now_ms); !r) {
    stats_.metadata_errors.fetch_add(1, std::memory_order_relaxed);
    rlm_log().warn("remote delete of {} at {}: DELETE_SEGMENT_STARTED not recorded: {}", partition_name(tp),
                   segment.start_offset, r.error().message);
    return false;
  }
  if (auto r = store_.remove(segment); !r) {
    stats_.delete_errors.fetch_add(1, std::memory_order_relaxed);
    rlm_log().warn("remote delete of {} offsets {}..{} failed: {}", partition_name(tp), segment.start_offset,
                   segment.end_offset, r.error().message);
    return false;
  }
  if (auto r = metadata_.update_segment(segment.id, SegmentState::kDeleteFinished, now_ms); !r) {
    stats_.metadata_errors.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  stats_.segments_deleted.fetch_add(1, std::memory_order_relaxed);
  stats_.bytes_deleted.fetch_add(segment.segment_size_in_bytes, std::memory_order_relaxed);
  return true;
}

int RemoteLogManager::expire_partition(const storage::TopicInfo& topic, int32_t partition, int64_t now_ms) {
  TopicIdPartition tp{topic.topic_id, topic.name, partition};
  auto lock = partition_lock(tp);
  std::unique_lock lk(*lock, std::try_to_lock);
  if (!lk.owns_lock()) return 0;
  int deleted = clean_unfinished(tp, now_ms);
  if (auto log = logs_.get_log(topic.name, partition)) deleted += apply_retention(*log, tp, now_ms);
  return deleted;
}

// Under the partition's lock, so no copy of it is in flight: every
// COPY_SEGMENT_STARTED is an attempt that will never finish.
int RemoteLogManager::clean_unfinished(const TopicIdPartition& tp, int64_t now_ms) {
  int deleted = 0;
  for (const auto& s : metadata_.segments(tp)) {
    if (s.state != SegmentState::kCopyStarted && s.state != SegmentState::kDeleteStarted) continue;
    if (delete_segment(s, now_ms)) ++deleted;
  }
  return deleted;
}

int RemoteLogManager::apply_retention(storage::Log& log, const TopicIdPartition& tp, int64_t now_ms) {
  auto cfg = log.config();
  std::vector<RemoteLogSegmentMetadata> finished;
  RetentionCheck check{log.log_start_offset().value, cfg->retention_ms, cfg->retention_bytes,
                       static_cast<int64_t>(log.local_only_size_bytes()), now_ms};
  for (auto& s : metadata_.segments(tp)) {
    if (s.state != SegmentState::kCopyFinished) continue;
    check.total_bytes += s.segment_size_in_bytes;
    finished.push_back(std::move(s));
  }
  int deleted = 0;
  int64_t new_start = -1;
  for (const auto& s : finished) {
    if (stop_requested_.load(std::memory_order_acquire) || !check.expired(s)) break;
    if (!delete_segment(s, now_ms)) break;
    ++deleted;
    check.total_bytes -= s.segment_size_in_bytes;
    new_start = s.end_offset + 1;
  }
  if (new_start > log.log_start_offset().value) {
    if (auto r = log.maybe_increment_log_start_offset(storage::Offset(new_start)); !r)
      rlm_log().warn("remote retention of {}: the log start could not move to {}", partition_name(tp), new_start);
  }
  return deleted;
}

int RemoteLogManager::sweep_partition(const TopicIdPartition& tp, bool whole_partition, int64_t now_ms) {
  auto lock = partition_lock(tp);
  std::unique_lock lk(*lock, std::try_to_lock);
  if (!lk.owns_lock()) return 0;
  if (whole_partition) {
    for (auto state : {PartitionDeleteState::kMarked, PartitionDeleteState::kStarted}) {
      auto current = metadata_.partition_delete_state(tp);
      if (current && static_cast<int>(*current) >= static_cast<int>(state)) continue;
      if (auto r = metadata_.put_partition_delete(tp, state, now_ms); !r) return 0;
    }
  }
  int deleted = 0;
  bool all = true;
  for (const auto& s : metadata_.segments(tp)) {
    if (s.state == SegmentState::kDeleteFinished) continue;
    if (delete_segment(s, now_ms)) {
      ++deleted;
    } else {
      all = false;
    }
  }
  if (whole_partition && all) (void)metadata_.put_partition_delete(tp, PartitionDeleteState::kFinished, now_ms);
  return deleted;
}

int RemoteLogManager::sweep(int64_t now_ms) {
  int deleted = 0;
  for (const auto& tp : metadata_.partitions()) {
    if (stop_requested_.load(std::memory_order_acquire)) break;
    if (metadata_.partition_delete_state(tp) == PartitionDeleteState::kFinished) continue;
    auto topic = logs_.topic_by_id(tp.topic_id);
    if (!topic || tp.partition >= topic->partitions) {
      deleted += sweep_partition(tp, true, now_ms);
      continue;
    }
    auto log = logs_.get_log(topic->name, tp.partition);
    auto cfg = log ? log->config() : nullptr;
    if (cfg && !cfg->remote_storage_enable && cfg->remote_log_delete_on_disable) {
      if (metadata_.segments(tp).empty()) continue;
      deleted += sweep_partition(tp, false, now_ms);
      // Kafka: the remote data gone, the log starts where the local one does.
      if (metadata_.segments(tp).empty()) (void)log->maybe_increment_log_start_offset(log->local_log_start_offset());
    }
  }
  return deleted;
}

}  // namespace skiff::remote
