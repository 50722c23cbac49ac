// RemoteLogManager's copy pass: a partition's copy candidates go to the
// store oldest first, each made durable in the metadata before and after
// (COPY_SEGMENT_STARTED, COPY_SEGMENT_FINISHED), and only then handed to
// the log as its highest remote offset. A failure stops the partition's pass
// (the next tick retries from the same segment, with a new segment id); the
// attempt's objects are deleted at once if possible, else by expiration.
#include <fmt/format.h>

#include "common/log_escape.h"
#include "remote/manager/remote_log_manager.h"
#include "remote/manager/rlm_log.h"

namespace skiff::remote {

namespace {

LogSegmentData segment_data(const storage::CopyCandidate& c) {
  LogSegmentData d;
  d.log = c.log_file;
  d.offset_index = c.offset_index_file;
  d.time_index = c.time_index_file;
  d.txn_index = c.txn_index_file;
  d.producer_snapshot = c.producer_snapshot_file;
  d.leader_epoch_checkpoint = c.leader_epoch_checkpoint;
  return d;
}

}  // namespace

int RemoteLogManager::copy_partition(const storage::TopicInfo& topic, int32_t partition, int64_t now_ms) {
  TopicIdPartition tp{topic.topic_id, topic.name, partition};
  auto lock = partition_lock(tp);
  std::unique_lock lk(*lock, std::try_to_lock);
  if (!lk.owns_lock()) return 0;
  auto log = logs_.get_log(topic.name, partition);
  if (!log) return 0;
  auto cfg = log->config();
  if (!cfg->remote_storage_enable || cfg->remote_log_copy_disable) return 0;
  if (auto state = metadata_.partition_delete_state(tp); state) return 0;
  int copied = 0;
  for (const auto& c : log->copy_candidates(log->highest_offset_in_remote() + 1)) {
    if (stop_requested_.load(std::memory_order_acquire)) break;
    if (!copy_segment(*log, tp, c, now_ms)) break;
    ++copied;
  }
  return copied;
}

bool RemoteLogManager::copy_segment(storage::Log& log, const TopicIdPartition& tp, const storage::CopyCandidate& c,
                                    int64_t now_ms) {
  RemoteLogSegmentMetadata m;
  m.id = RemoteLogSegmentId{tp, Uuid::random()};
  m.start_offset = c.base_offset;
  m.end_offset = c.last_offset;
  m.max_timestamp_ms = c.max_timestamp;
  m.broker_id = config_.broker_id;
  m.event_timestamp_ms = now_ms;
  for (const auto& e : c.segment_leader_epochs) m.segment_leader_epochs[e.epoch] = e.start_offset;
  m.segment_size_in_bytes = static_cast<int32_t>(c.size_bytes);
  m.txn_index_empty = !c.txn_index_file.has_value();
  if (auto r = metadata_.add_segment(m); !r) {
    stats_.metadata_errors.fetch_add(1, std::memory_order_relaxed);
    rlm_log().warn("remote copy of {} at {}: the metadata refused COPY_SEGMENT_STARTED: {}", partition_name(tp),
                   c.base_offset, r.error().message);
    return false;
  }
  auto copied = store_.copy(m, segment_data(c));
  if (!copied) {
    stats_.copy_errors.fetch_add(1, std::memory_order_relaxed);
    rlm_log().warn("remote copy of {} offsets {}..{} failed ({}): {}", partition_name(tp), c.base_offset, c.last_offset,
                   copied.error().retriable ? "retriable" : "not retriable", copied.error().message);
    delete_segment(m, now_ms);  // the attempt's objects; on failure expiration finishes it
    return false;
  }
  if (auto r = metadata_.update_segment(m.id, SegmentState::kCopyFinished, now_ms, *copied); !r) {
    stats_.metadata_errors.fetch_add(1, std::memory_order_relaxed);
    rlm_log().warn("remote copy of {} at {}: COPY_SEGMENT_FINISHED not recorded: {}", partition_name(tp), c.base_offset,
                   r.error().message);
    return false;  // left COPY_SEGMENT_STARTED: expiration deletes it
  }
  if (auto r = log.update_highest_offset_in_remote(c.last_offset); !r)
    rlm_log().warn("remote copy of {} at {}: the log refused its highest remote offset {}", partition_name(tp),
                   c.base_offset, c.last_offset);
  stats_.segments_copied.fetch_add(1, std::memory_order_relaxed);
  stats_.bytes_copied.fetch_add(static_cast<int64_t>(c.size_bytes), std::memory_order_relaxed);
  copy_throttle_.maybe_throttle(static_cast<double>(c.size_bytes));
  return true;
}

}  // namespace skiff::remote
