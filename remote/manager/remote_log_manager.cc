// RemoteLogManager: its lifecycle (the ticker thread and the two pools),
// the partitions it works on, and recovery at start. The passes themselves
// are in rlm_copy.cc and rlm_expire.cc.
#include "remote/manager/remote_log_manager.h"

#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>

#include "common/log_escape.h"
#include "common/wall_clock.h"
#include "remote/manager/rlm_log.h"

namespace skiff::remote {

struct RemoteLogManager::Pools {
  boost::asio::thread_pool copier;
  boost::asio::thread_pool expiration;
  Pools(int copiers, int expirers)
      : copier(static_cast<size_t>(std::max(1, copiers))), expiration(static_cast<size_t>(std::max(1, expirers))) {}
};

RemoteLogManager::RemoteLogManager(storage::LogManager& logs, RemoteLogMetadataManager& metadata, SegmentStore& store,
                                   RemoteLogManagerConfig config)
    : logs_(logs),
      metadata_(metadata),
      store_(store),
      config_(config),
      copy_throttle_(config.copy_max_bytes_per_second) {}

RemoteLogManager::~RemoteLogManager() { stop(); }

void RemoteLogManager::recover() {
  for (const auto& tp : metadata_.partitions()) {
    auto topic = logs_.topic_by_id(tp.topic_id);
    if (!topic) continue;
    auto log = logs_.get_log(topic->name, tp.partition);
    if (log) recover_log(*log, tp);
  }
}

// The log keeps neither its highest remote offset nor a log start newer
// than its last checkpoint: both come back from the metadata. The log start
// is raised (never lowered) to the first finished remote segment, or to the
// local start when nothing is remote, so that a retention that deleted
// remote segments just before a crash is not undone.
void RemoteLogManager::recover_log(storage::Log& log, const TopicIdPartition& tp) {
  if (auto highest = metadata_.highest_offset(tp); highest && !log.update_highest_offset_in_remote(*highest))
    rlm_log().warn("remote recovery of {}-{}: highest remote offset {} past the log end {}", escape_for_log(tp.topic),
                   tp.partition, *highest, log.log_end_offset().value);
  int64_t start = log.local_log_start_offset().value;
  for (const auto& s : metadata_.segments(tp)) {
    if (s.state != SegmentState::kCopyFinished) continue;
    start = std::min(start, s.start_offset);
    break;
  }
  if (start > log.log_start_offset().value) (void)log.maybe_increment_log_start_offset(storage::Offset(start));
}

void RemoteLogManager::start() {
  recover();
  pools_ = std::make_unique<Pools>(config_.copier_threads, config_.expiration_threads);
  stopping_ = false;
  ticker_ = std::thread([this] { ticker(); });
}

void RemoteLogManager::stop() {
  {
    std::lock_guard lk(ticker_mu_);
    stopping_ = true;
  }
  stop_requested_.store(true, std::memory_order_release);
  ticker_cv_.notify_all();
  if (ticker_.joinable()) ticker_.join();
  if (pools_) {
    pools_->copier.join();
    pools_->expiration.join();
    pools_.reset();
  }
}

void RemoteLogManager::ticker() {
  std::unique_lock lk(ticker_mu_);
  while (!stopping_) {
    lk.unlock();
    post_tick();
    lk.lock();
    ticker_cv_.wait_for(lk, std::chrono::milliseconds(config_.task_interval_ms), [this] { return stopping_; });
  }
}

// One task per partition on each pool; a busy partition skips this tick.
void RemoteLogManager::post_tick() {
  for (auto& [topic, partition] : remote_partitions()) {
    boost::asio::post(pools_->copier, [this, topic = topic, partition = partition] {
      if (!stop_requested_.load(std::memory_order_acquire)) copy_partition(topic, partition, wall_clock_ms());
    });
    boost::asio::post(pools_->expiration, [this, topic = topic, partition = partition] {
      if (!stop_requested_.load(std::memory_order_acquire)) expire_partition(topic, partition, wall_clock_ms());
    });
  }
  boost::asio::post(pools_->expiration, [this] {
    if (!stop_requested_.load(std::memory_order_acquire)) sweep(wall_clock_ms());
  });
}

std::vector<std::pair<storage::TopicInfo, int32_t>> RemoteLogManager::remote_partitions() const {
  std::vector<std::pair<storage::TopicInfo, int32_t>> out;
  for (const auto& topic : logs_.list_topics()) {
    for (int32_t p = 0; p < topic.partitions; ++p) {
      auto log = logs_.get_log(topic.name, p);
      if (log && log->config()->remote_storage_enable) out.emplace_back(topic, p);
    }
  }
  return out;
}

std::shared_ptr<std::mutex> RemoteLogManager::partition_lock(const TopicIdPartition& tp) {
  std::lock_guard lk(locks_mu_);
  auto& lock = locks_[tp];
  if (!lock) lock = std::make_shared<std::mutex>();
  return lock;
}

int RemoteLogManager::run_copy_once(int64_t now_ms) {
  int copied = 0;
  for (auto& [topic, partition] : remote_partitions()) copied += copy_partition(topic, partition, now_ms);
  return copied;
}

int RemoteLogManager::run_expiration_once(int64_t now_ms) {
  int deleted = 0;
  for (auto& [topic, partition] : remote_partitions()) deleted += expire_partition(topic, partition, now_ms);
  return deleted + sweep(now_ms);
}

}  // namespace skiff::remote
