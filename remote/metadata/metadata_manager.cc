// RemoteLogMetadataManager: validate, append, flush, apply; replay at start.
// See metadata_manager.h.
#include "remote/metadata/metadata_manager.h"

#include <stdexcept>

#include "common/log_escape.h"
#include "common/subsystem_logger.h"
#include "common/wall_clock.h"
#include "log/batch_builder.h"
#include "log/record_batch.h"
#include "protocol/errors.h"

namespace skiff::remote {
namespace {

spdlog::logger& log() {
  static const std::shared_ptr<spdlog::logger> logger = subsystem_logger("remote");
  return *logger;
}

constexpr int32_t kDefaultSegmentBytes = 1 << 30;  // Kafka's log.segment.bytes default

coordinator::StateTopicConfig topic_config(const MetadataTopicConfig& c) {
  coordinator::StateTopicConfig t;
  t.name = kRemoteLogMetadataTopic;
  t.partitions = c.partitions;
  t.segment_bytes = c.segment_bytes > 0 ? c.segment_bytes : kDefaultSegmentBytes;
  t.cleanup_policy = "delete";
  t.retention_ms = c.retention_ms;
  return t;
}

storage::Error refused(const CacheError& e) {
  return storage::Error::of(e.kind == CacheError::Kind::kNotFound ? storage::LogErrc::kUnknownTopicOrPartition
                                                                  : storage::LogErrc::kInvalidRequest,
                            e.message);
}

}  // namespace

RemoteLogMetadataManager::RemoteLogMetadataManager(storage::LogManager& logs, MetadataTopicConfig config)
    : config_(config), topic_(logs, topic_config(config)) {
  if (config_.partitions <= 0)
    throw std::invalid_argument("remote.log.metadata.topic.num.partitions must be positive, not " +
                                std::to_string(config_.partitions));
}

RemoteLogMetadataManager::~RemoteLogMetadataManager() { topic_.stop(); }

void RemoteLogMetadataManager::start() {
  std::lock_guard write(write_mu_);
  topic_.open();
  topic_.ensure_created();
  int32_t partition = -1;
  topic_.replay([&partition](int32_t p) { partition = p; },
                [this, &partition](const storage::RecordBatchView& batch) {
                  if (batch.is_control()) return;
                  if (batch.compression() != storage::Compression::kNone) {  // Kafka's producer may compress
                    skip_compressed(partition, batch.base_offset());
                    return;
                  }
                  storage::RecordIterator it(batch);
                  storage::RecordView r;
                  while (it.next(r)) replay_record(partition, r.offset(batch), r.value);
                  if (!it.ok())
                    throw std::runtime_error(std::string(kRemoteLogMetadataTopic) + "-" + std::to_string(partition) +
                                             ": malformed records at offset " + std::to_string(batch.base_offset()));
                });
  std::unique_lock lock(mu_);
  started_ = true;
  log().info("{}: {} partition(s), {} record(s) replayed, {} skipped, {} remote partition(s)", kRemoteLogMetadataTopic,
             topic_.partitions(), stats_.records, stats_.skipped, cache_.partitions().size());
}

void RemoteLogMetadataManager::skip_compressed(int32_t partition, int64_t offset) {
  log().warn("{}-{}@{}: a compressed batch, skipped (Skiff writes this topic uncompressed)", kRemoteLogMetadataTopic,
             partition, offset);
  std::unique_lock lock(mu_);
  ++stats_.skipped;
}

// Kafka's consumer task: a record that does not decode or does not apply is
// logged and dropped.
void RemoteLogMetadataManager::replay_record(int32_t partition, int64_t offset,
                                             std::optional<std::span<const uint8_t>> value) {
  const auto where =
      std::string(kRemoteLogMetadataTopic) + "-" + std::to_string(partition) + "@" + std::to_string(offset);
  std::unique_lock lock(mu_);
  if (!value) {
    log().warn("{}: a null value, skipped", where);
    ++stats_.skipped;
    return;
  }
  try {
    const MetadataRecord record = decode_metadata_record(*value);
    if (auto e = cache_.apply(record)) {
      log().warn("{}: skipped: {}", where, escaped(e->message));
      ++stats_.skipped;
      return;
    }
    ++stats_.records;
  } catch (const protocol::ProtocolError& e) {
    log().warn("{}: skipped, does not decode: {}", where, escaped(e.what()));
    ++stats_.skipped;
  }
}

storage::Result<void> RemoteLogMetadataManager::write(const MetadataRecord& record, const TopicIdPartition& tp) {
  std::lock_guard write(write_mu_);
  {
    std::shared_lock lock(mu_);
    if (!started_) return unexpected(storage::Error::of(storage::LogErrc::kStorageError, "not started"));
    if (auto e = cache_.check(record)) return unexpected(refused(*e));
  }
  const std::vector<uint8_t> value = encode_metadata_record(record);
  storage::BatchBuilder b;
  b.add(std::nullopt, std::string_view(reinterpret_cast<const char*>(value.data()), value.size()), wall_clock_ms());
  const int32_t partition = metadata_partition(tp, topic_.partitions());
  const auto points = topic_.append(partition, b.build());  // logs why it failed
  if (!points)
    return unexpected(storage::Error::of(
        storage::LogErrc::kStorageError,
        std::string("cannot append to ") + kRemoteLogMetadataTopic + "-" + std::to_string(partition)));
  if (!topic_.flush(*points))
    return unexpected(
        storage::Error::of(storage::LogErrc::kStorageError,
                           std::string("cannot flush ") + kRemoteLogMetadataTopic + "-" + std::to_string(partition)));
  std::unique_lock lock(mu_);
  if (auto e = cache_.apply(record)) return unexpected(refused(*e));  // cannot happen: checked under write_mu_
  return {};
}

storage::Result<void> RemoteLogMetadataManager::add_segment(const RemoteLogSegmentMetadata& segment) {
  return write(segment, segment.id.partition);
}

storage::Result<void> RemoteLogMetadataManager::update_segment(const RemoteLogSegmentId& id, SegmentState state,
                                                               int64_t event_timestamp_ms,
                                                               std::optional<std::string> custom_metadata) {
  return write(SegmentUpdate{id, event_timestamp_ms, std::move(custom_metadata), state, config_.broker_id},
               id.partition);
}

storage::Result<void> RemoteLogMetadataManager::put_partition_delete(const TopicIdPartition& tp,
                                                                     PartitionDeleteState state,
                                                                     int64_t event_timestamp_ms) {
  return write(PartitionDelete{tp, state, event_timestamp_ms, config_.broker_id}, tp);
}

std::optional<RemoteLogSegmentMetadata> RemoteLogMetadataManager::segment_for_offset(const TopicIdPartition& tp,
                                                                                     int64_t offset) const {
  std::shared_lock lock(mu_);
  const PartitionMetadata* p = cache_.partition(tp);
  return p ? p->segment_for(offset) : std::nullopt;
}

std::optional<RemoteLogSegmentMetadata> RemoteLogMetadataManager::segment_for_offset(const TopicIdPartition& tp,
                                                                                     int32_t leader_epoch,
                                                                                     int64_t offset) const {
  std::shared_lock lock(mu_);
  const PartitionMetadata* p = cache_.partition(tp);
  return p ? p->segment_for(leader_epoch, offset) : std::nullopt;
}

std::vector<RemoteLogSegmentMetadata> RemoteLogMetadataManager::segments(const TopicIdPartition& tp) const {
  std::shared_lock lock(mu_);
  const PartitionMetadata* p = cache_.partition(tp);
  return p ? p->segments() : std::vector<RemoteLogSegmentMetadata>{};
}

std::vector<RemoteLogSegmentMetadata> RemoteLogMetadataManager::segments(const TopicIdPartition& tp,
                                                                         int32_t leader_epoch) const {
  std::shared_lock lock(mu_);
  const PartitionMetadata* p = cache_.partition(tp);
  return p ? p->segments(leader_epoch) : std::vector<RemoteLogSegmentMetadata>{};
}

std::optional<int64_t> RemoteLogMetadataManager::highest_offset(const TopicIdPartition& tp) const {
  std::shared_lock lock(mu_);
  const PartitionMetadata* p = cache_.partition(tp);
  return p ? p->highest_offset() : std::nullopt;
}

std::optional<int64_t> RemoteLogMetadataManager::highest_offset(const TopicIdPartition& tp,
                                                                int32_t leader_epoch) const {
  std::shared_lock lock(mu_);
  const PartitionMetadata* p = cache_.partition(tp);
  return p ? p->highest_offset(leader_epoch) : std::nullopt;
}

std::optional<PartitionDeleteState> RemoteLogMetadataManager::partition_delete_state(const TopicIdPartition& tp) const {
  std::shared_lock lock(mu_);
  return cache_.delete_state(tp);
}

std::vector<TopicIdPartition> RemoteLogMetadataManager::partitions() const {
  std::shared_lock lock(mu_);
  return cache_.partitions();
}

ReplayStats RemoteLogMetadataManager::replay_stats() const {
  std::shared_lock lock(mu_);
  return stats_;
}

}  // namespace skiff::remote
