// RemoteLogReader: the pool, the two caches and the segment lookups. The
// read path is reader_read.cc, the timestamp search reader_timestamp.cc.
#include "remote/reader/remote_log_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <limits>

#include "remote/manager/rlm_log.h"
#include "remote/reader/segment_cursor.h"

namespace skiff::remote {

namespace {

constexpr uint64_t kChunkOverheadBytes = 64;  // the string and the cache's slot

RemoteFetchResult error_result(RemoteStorageError e) {
  RemoteFetchResult r;
  r.error = std::move(e);
  return r;
}

RemoteStorageError shutting_down() { return RemoteStorageError{false, "the remote log reader is shutting down"}; }

}  // namespace

std::string describe_segment(const RemoteLogSegmentMetadata& s) {
  return fmt::format("{} segment {} (offsets {}..{})", partition_name(s.id.partition), s.id.id.to_string(),
                     s.start_offset, s.end_offset);
}

RemoteStorageError corrupt_error(const RemoteLogSegmentMetadata& s, std::string_view what, uint64_t position) {
  return RemoteStorageError{false, fmt::format("{} at position {} of remote {}", what, position, describe_segment(s))};
}

RemoteLogReader::RemoteLogReader(RemoteLogMetadataManager& metadata, SegmentStore& store, RemoteReaderConfig config)
    : metadata_(metadata),
      store_(store),
      config_([&] {
        config.chunk_bytes = std::max<uint64_t>(config.chunk_bytes, 1);
        config.threads = std::max(config.threads, 1);
        config.max_pending = std::max(config.max_pending, 0);
        return config;
      }()),
      index_cache_(config_.index_cache_bytes),
      chunk_cache_(config_.chunk_cache_bytes) {}

RemoteLogReader::~RemoteLogReader() { stop(); }

void RemoteLogReader::start() {
  std::lock_guard lk(mu_);
  if (started_ || stopping()) return;
  started_ = true;
  for (int i = 0; i < config_.threads; ++i) threads_.emplace_back([this] { worker(); });
}

void RemoteLogReader::stop() {
  std::vector<std::thread> threads;
  std::deque<Task> orphans;  // queued on a reader never started: no pool thread will take them
  {
    std::lock_guard lk(mu_);
    stopping_.store(true, std::memory_order_release);
    threads.swap(threads_);
    if (!started_) orphans.swap(queue_);
  }
  cv_.notify_all();
  for (auto& t : threads) t.join();
  for (auto& t : orphans) t.run(false);
}

bool RemoteLogReader::enqueue(Task task) {
  {
    std::lock_guard lk(mu_);
    if (stopping() || queue_.size() >= static_cast<size_t>(config_.max_pending)) {
      stats_.rejected.fetch_add(1, std::memory_order_relaxed);
      return false;
    }
    queue_.push_back(std::move(task));
  }
  cv_.notify_one();
  return true;
}

bool RemoteLogReader::submit(RemoteFetchRequest request, std::function<void(RemoteFetchResult)> done) {
  return enqueue(Task{[this, request = std::move(request), done = std::move(done)](bool run) {
    RemoteFetchResult result;
    try {
      result = run ? read(request) : error_result(shutting_down());
    } catch (const std::exception& e) {
      result = error_result(RemoteStorageError{false, fmt::format("remote read failed: {}", e.what())});
    }
    try {
      done(std::move(result));
    } catch (const std::exception& e) {
      rlm_log().error("remote read of {} at {}: its completion threw: {}", partition_name(request.tp),
                      request.fetch_offset, e.what());
    }
  }});
}

bool RemoteLogReader::submit_offset_for_timestamp(
    const TopicIdPartition& tp, int64_t ts, int64_t start_offset,
    std::function<void(RsmResult<std::optional<TimestampAndOffset>>)> done) {
  return enqueue(Task{[this, tp, ts, start_offset, done = std::move(done)](bool run) {
    RsmResult<std::optional<TimestampAndOffset>> result = skiff::unexpected(shutting_down());
    try {
      if (run) result = find_offset_by_timestamp(tp, ts, start_offset);
    } catch (const std::exception& e) {
      result = skiff::unexpected(RemoteStorageError{false, fmt::format("remote offset lookup failed: {}", e.what())});
    }
    try {
      done(std::move(result));
    } catch (const std::exception& e) {
      rlm_log().error("remote offset lookup of {}: its completion threw: {}", partition_name(tp), e.what());
    }
  }});
}

// Takes queued jobs until stop() and the queue is empty; jobs taken after
// stop() began are answered with the shutting-down error, not run.
void RemoteLogReader::worker() {
  for (;;) {
    Task task;
    {
      std::unique_lock lk(mu_);
      cv_.wait(lk, [this] { return stopping() || !queue_.empty(); });
      if (queue_.empty()) return;
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task.run(!stopping());
  }
}

RsmResult<std::shared_ptr<const RemoteIndex>> RemoteLogReader::index(const RemoteLogSegmentMetadata& segment,
                                                                     IndexType type) {
  const IndexKey key{segment.id.id, type};
  if (auto hit = index_cache_.get(key)) {
    stats_.index_hits.fetch_add(1, std::memory_order_relaxed);
    return hit;
  }
  stats_.index_misses.fetch_add(1, std::memory_order_relaxed);
  auto bytes = store_.fetch_index(segment, type);
  if (!bytes) return skiff::unexpected(bytes.error());
  std::optional<std::string_view> view;
  if (*bytes) view = **bytes;
  auto decoded = RemoteIndex::decode(type, segment.start_offset, segment.end_offset, view);
  if (decoded->dropped() > 0 || decoded->corrupt())
    rlm_log().warn("the remote {} index of {} does not decode whole ({} entries dropped{})", index_name(type),
                   describe_segment(segment), decoded->dropped(), decoded->corrupt() ? ", unknown version" : "");
  index_cache_.put(key, decoded, decoded->cost_bytes());
  update_cache_gauges();
  return decoded;
}

RsmResult<std::shared_ptr<const std::string>> RemoteLogReader::chunk(const RemoteLogSegmentMetadata& segment,
                                                                     uint64_t number) {
  const uint64_t size = config_.chunk_bytes;
  const uint64_t start = number * size;
  const bool size_known = segment.segment_size_in_bytes > 0;
  const auto seg_size = static_cast<uint64_t>(std::max(segment.segment_size_in_bytes, 0));
  if (size_known && start >= seg_size) return std::make_shared<const std::string>();
  const ChunkKey key{segment.id.id, number};
  if (auto hit = chunk_cache_.get(key)) {
    stats_.chunk_hits.fetch_add(1, std::memory_order_relaxed);
    return hit;
  }
  stats_.chunk_misses.fetch_add(1, std::memory_order_relaxed);
  uint64_t end = start + size - 1;
  if (size_known) end = std::min(end, seg_size - 1);
  auto bytes = store_.fetch_log_segment(segment, start, end);
  if (!bytes) return skiff::unexpected(bytes.error());
  if (bytes->size() > end - start + 1) bytes->resize(end - start + 1);  // never trust more than asked for
  stats_.bytes_fetched.fetch_add(static_cast<int64_t>(bytes->size()), std::memory_order_relaxed);
  auto data = std::make_shared<const std::string>(std::move(*bytes));
  chunk_cache_.put(key, data, data->size() + kChunkOverheadBytes);
  update_cache_gauges();
  return data;
}

void RemoteLogReader::update_cache_gauges() {
  stats_.index_cache_bytes.store(static_cast<int64_t>(index_cache_.bytes()), std::memory_order_relaxed);
  stats_.chunk_cache_bytes.store(static_cast<int64_t>(chunk_cache_.bytes()), std::memory_order_relaxed);
}

std::optional<RemoteLogSegmentMetadata> RemoteLogReader::next_segment(const RemoteLogSegmentMetadata& s) const {
  if (s.end_offset == std::numeric_limits<int64_t>::max()) return std::nullopt;
  if (auto next = metadata_.segment_for_offset(s.id.partition, s.end_offset + 1)) return next;
  // A gap in the offsets (none is expected): the first finished segment after it.
  for (const auto& other : metadata_.segments(s.id.partition)) {
    if (other.state != SegmentState::kCopyFinished || other.start_offset <= s.end_offset) continue;
    if (auto holder = metadata_.segment_for_offset(s.id.partition, other.start_offset)) return holder;
    return other;
  }
  return std::nullopt;
}

}  // namespace skiff::remote
