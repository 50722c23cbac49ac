#include "coordinator/group/offsets_topic.h"

#include <fmt/format.h>

#include <stdexcept>

#include "common/kafka_hash.h"
#include "common/log_escape.h"
#include "common/wall_clock.h"
#include "coordinator/runtime/coordinator_log.h"
#include "coordinator/runtime/storage_errors.h"
#include "log/batch_builder.h"
#include "log/control_batch.h"
#include "log/record_batch.h"

namespace skiff::group {
namespace {

std::string_view as_chars(const std::vector<uint8_t>& b) { return {reinterpret_cast<const char*>(b.data()), b.size()}; }

void add(storage::BatchBuilder& b, const std::vector<uint8_t>& key, const std::optional<std::vector<uint8_t>>& value,
         int64_t now) {
  b.add(as_chars(key), value ? std::optional(as_chars(*value)) : std::nullopt, now);
}

// The records of one stored batch, replayed.
void replay_batch(const storage::RecordBatchView& batch, OffsetsReplay& replay) {
  if (batch.is_control()) {
    if (batch.is_transactional())
      if (auto m = storage::parse_marker(batch)) replay.apply_marker(batch.producer_id(), m->commit);
    return;
  }
  if (batch.compression() != storage::Compression::kNone)
    throw std::runtime_error("__consumer_offsets: compressed batch at offset " + std::to_string(batch.base_offset()) +
                             " (Skiff writes them uncompressed)");
  storage::RecordIterator it(batch);
  storage::RecordView r;
  while (it.next(r)) {
    if (!r.key) throw std::runtime_error("__consumer_offsets: record without a key");
    auto rec = decode_offsets_log_record(*r.key, r.value);
    if (batch.is_transactional())
      replay.apply_pending(batch.producer_id(), batch.producer_epoch(), rec);
    else
      replay.apply(rec);
  }
  if (!it.ok())
    throw std::runtime_error("__consumer_offsets: malformed records at offset " + std::to_string(batch.base_offset()));
}

}  // namespace

OffsetsTopic::OffsetsTopic(storage::LogManager& logs, OffsetsTopicConfig config)
    : logs_(logs), config_(config), partitions_(config.partitions) {}

protocol::Uuid OffsetsTopic::topic_id(const TopicPartition& tp) const {
  auto info = logs_.topic(tp.topic);
  return info ? info->topic_id : protocol::Uuid{};
}

int32_t OffsetsTopic::partition_for(const std::string& group) const {
  return skiff::offsets_partition_for(group, partitions_);
}

void OffsetsTopic::open_existing() {
  auto info = logs_.topic(kConsumerOffsetsTopic);
  if (!info) return;
  std::vector<std::shared_ptr<storage::Log>> parts;
  for (int32_t p = 0; p < info->partitions; ++p) {
    auto l = logs_.get_log(kConsumerOffsetsTopic, p);
    if (!l) throw std::runtime_error("__consumer_offsets-" + std::to_string(p) + " is missing");
    parts.push_back(std::move(l));
  }
  parts_ = std::move(parts);
}

void OffsetsTopic::ensure_created() {
  std::lock_guard lock(mu_);
  ensure_created_locked();
}

// Also after a DeleteTopics of __consumer_offsets (Kafka 4.4 allows it): the
// next write creates it again, empty, as Kafka's coordinator would.
void OffsetsTopic::ensure_created_locked() {
  if (!parts_.empty() && !parts_.front()->deleted()) return;
  parts_.clear();
  open_existing();
  if (!parts_.empty()) return;
  // segment.bytes has a 1 MiB floor as a topic config; below it (tests),
  // Kafka's internal.segment.bytes carries the size, as for __transaction_state.
  const char* size_key = config_.segment_bytes >= (1 << 20) ? "segment.bytes" : "internal.segment.bytes";
  std::map<std::string, std::string> overrides{{"cleanup.policy", "compact"},
                                               {size_key, std::to_string(config_.segment_bytes)},
                                               {"compression.type", "uncompressed"}};
  auto r = logs_.create_topic(kConsumerOffsetsTopic, partitions_, overrides);
  if (r.error != storage::LogErrc::kNone && r.error != storage::LogErrc::kTopicAlreadyExists)
    throw std::runtime_error("cannot create __consumer_offsets: " + r.message);
  open_existing();
  if (parts_.empty()) throw std::runtime_error("__consumer_offsets is missing after its creation");
  coordinator::log().info("created the internal topic __consumer_offsets ({} partitions, cleanup.policy=compact)",
                          partitions_);
}

std::shared_ptr<storage::Log> OffsetsTopic::log(int32_t partition) {
  std::lock_guard lock(mu_);
  ensure_created_locked();
  if (partition < 0 || partition >= static_cast<int32_t>(parts_.size()))
    throw std::runtime_error("__consumer_offsets has no partition " + std::to_string(partition));
  return parts_[partition];
}

bool OffsetsTopic::exists() const {
  std::lock_guard lock(mu_);
  return !parts_.empty() && !parts_.front()->deleted();
}

int64_t OffsetsTopic::load(std::map<std::string, LoadedGroup>& loaded) {
  std::vector<std::shared_ptr<storage::Log>> parts;
  {
    std::lock_guard lock(mu_);
    if (parts_.empty()) open_existing();
    parts = parts_;
  }
  if (!parts.empty() && static_cast<int32_t>(parts.size()) != config_.partitions)
    coordinator::log().warn(
        "__consumer_offsets has {} partitions; offsets.topic.num.partitions={} is ignored, as in Kafka", parts.size(),
        config_.partitions);
  if (!parts.empty()) partitions_ = static_cast<int32_t>(parts.size());
  OffsetsReplay replay(loaded);
  for (auto& l : parts) {
    replay.start_partition();
    load_partition(*l, replay);
  }
  return replay.last_order();
}

void OffsetsTopic::load_partition(storage::Log& log, OffsetsReplay& replay) {
  storage::Offset next = log.log_start_offset();
  const storage::Offset end = log.log_end_offset();
  const std::string where = "__consumer_offsets-" + std::to_string(log.partition());
  while (next.value < end.value) {
    auto rr = log.read(next, 1 << 20);
    if (rr.error != storage::LogErrc::kNone)
      throw std::runtime_error(where + ": read at offset " + std::to_string(next.value) + " failed");
    if (rr.slice.empty()) break;
    auto bytes = rr.slice.read_all();
    if (bytes.empty()) throw std::runtime_error(where + ": unreadable segment");
    storage::BatchIterator batches(bytes);
    storage::RecordBatchView batch;
    const int64_t before = next.value;
    while (batches.next(batch)) {
      if (batch.next_offset() <= next.value) continue;  // the part of the first batch before `next`
      replay_batch(batch, replay);
      next = storage::Offset(batch.next_offset());
    }
    if (next.value == before) throw std::runtime_error(where + ": no progress reading the log");
  }
}

// Runs one append on the partition's log: its flush point, or nothing (logged
// as `what`, `error` set) when it failed.
std::optional<FlushPoints> OffsetsTopic::append_with(int32_t partition, const std::string& what, ErrorCode* error,
                                                     const std::function<storage::AppendResult(storage::Log&)>& op) {
  try {
    auto r = op(*log(partition));
    if (!r.ok()) {
      coordinator::log().error("{} on __consumer_offsets-{} failed: {}", what, partition, escaped(r.error_message));
      if (error) *error = to_error_code(r.error);
      return std::nullopt;
    }
    FlushPoints fp;
    fp.ends[partition] = r.last_offset.value + 1;
    return fp;
  } catch (const std::exception& e) {
    coordinator::log().error("{} on __consumer_offsets-{} failed: {}", what, partition, escaped(e.what()));
    if (error) *error = ErrorCode::kCoordinatorNotAvailable;
    return std::nullopt;
  }
}

std::optional<FlushPoints> OffsetsTopic::append(int32_t partition, std::vector<uint8_t> batch, ErrorCode* error) {
  return append_with(partition, "append", error, [&batch](storage::Log& l) {
    return l.append(std::span<uint8_t>(batch), /*leader_epoch=*/0, wall_clock_ms());
  });
}

std::optional<FlushPoints> OffsetsTopic::write_offsets(
    const std::string& group, const std::vector<std::pair<TopicPartition, OffsetAndMetadata>>& offsets) {
  const int64_t now = wall_clock_ms();
  storage::BatchBuilder b;
  for (const auto& [tp, o] : offsets) add(b, encode_offset_key(group, tp), encode_offset_value(o, topic_id(tp)), now);
  return append(partition_for(group), b.build(), nullptr);
}

std::optional<FlushPoints> OffsetsTopic::delete_offsets(const std::string& group,
                                                        const std::vector<TopicPartition>& tps) {
  const int64_t now = wall_clock_ms();
  storage::BatchBuilder b;
  for (const auto& tp : tps) add(b, encode_offset_key(group, tp), std::nullopt, now);
  return append(partition_for(group), b.build(), nullptr);
}

std::optional<FlushPoints> OffsetsTopic::write_group(const GroupRecord& group) {
  storage::BatchBuilder b;
  add(b, encode_group_key(group.group_id), encode_group_value(group), wall_clock_ms());
  return append(partition_for(group.group_id), b.build(), nullptr);
}

std::optional<FlushPoints> OffsetsTopic::write_consumer(const std::string& group,
                                                        const std::vector<ConsumerGroupRecord>& records) {
  if (records.empty()) return FlushPoints{};
  const int64_t now = wall_clock_ms();
  storage::BatchBuilder b;
  for (const auto& r : records) add(b, encode_consumer_key(r), encode_consumer_value(r), now);
  return append(partition_for(group), b.build(), nullptr);
}

std::optional<FlushPoints> OffsetsTopic::delete_group(const std::string& group,
                                                      const std::vector<TopicPartition>& tps) {
  const int64_t now = wall_clock_ms();
  storage::BatchBuilder b;
  for (const auto& tp : tps) add(b, encode_offset_key(group, tp), std::nullopt, now);
  add(b, encode_group_key(group), std::nullopt, now);
  return append(partition_for(group), b.build(), nullptr);
}

std::optional<FlushPoints> OffsetsTopic::write_pending(
    const std::string& group, int64_t producer_id, int16_t producer_epoch,
    const std::vector<std::pair<TopicPartition, OffsetAndMetadata>>& offsets, ErrorCode* error) {
  const int32_t partition = partition_for(group);
  int32_t seq = 0;
  try {
    // Continue the producer's sequence on this partition (a new epoch starts at 0).
    if (auto e = log(partition)->producer_state(producer_id); e && e->epoch == producer_epoch)
      seq = storage::add_sequence(e->last_seq(), 1);
  } catch (const std::exception& e) {
    coordinator::log().error("__consumer_offsets-{}: {}", partition, escaped(e.what()));
    if (error) *error = ErrorCode::kCoordinatorNotAvailable;
    return std::nullopt;
  }
  const int64_t now = wall_clock_ms();
  storage::BatchBuilder b;
  b.producer(producer_id, producer_epoch, seq).transactional(true);
  for (const auto& [tp, o] : offsets) add(b, encode_offset_key(group, tp), encode_offset_value(o, topic_id(tp)), now);
  return append(partition, b.build(), error);
}

std::optional<FlushPoints> OffsetsTopic::write_marker(int32_t partition, int64_t producer_id, int16_t producer_epoch,
                                                      bool commit, ErrorCode* error) {
  const std::string what =
      fmt::format("{} marker for producer {} epoch {}", commit ? "COMMIT" : "ABORT", producer_id, producer_epoch);
  return append_with(partition, what, error, [&](storage::Log& l) {
    return l.append_marker(producer_id, producer_epoch, commit, /*coordinator_epoch=*/0, /*transaction_version=*/0,
                           /*leader_epoch=*/0, wall_clock_ms());
  });
}

bool OffsetsTopic::flush(const FlushPoints& points) {
  bool ok = true;
  for (auto [p, end] : points.ends) {
    std::shared_ptr<storage::Log> l;
    {
      std::lock_guard lock(mu_);
      if (p < 0 || p >= static_cast<int32_t>(parts_.size())) return false;
      l = parts_[p];
    }
    if (l->flush_to(storage::Offset(end)) != storage::LogErrc::kNone) {
      coordinator::log().error("__consumer_offsets-{}: fsync failed", p);
      ok = false;
    }
  }
  return ok;
}

}  // namespace skiff::group
