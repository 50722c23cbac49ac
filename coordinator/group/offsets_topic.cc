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
  coordinator::for_each_record(batch, kConsumerOffsetsTopic, [&](auto key, auto value) {
    auto rec = decode_offsets_log_record(key, value);
    if (batch.is_transactional())
      replay.apply_pending(batch.producer_id(), batch.producer_epoch(), rec);
    else
      replay.apply(rec);
  });
}

}  // namespace

OffsetsTopic::OffsetsTopic(storage::LogManager& logs, OffsetsTopicConfig config)
    : logs_(logs), topic_(logs, {kConsumerOffsetsTopic, config.partitions, config.segment_bytes}) {}

protocol::Uuid OffsetsTopic::topic_id(const TopicPartition& tp) const {
  auto info = logs_.topic(tp.topic);
  return info ? info->topic_id : protocol::Uuid{};
}

int32_t OffsetsTopic::partition_for(const std::string& group) const {
  return skiff::offsets_partition_for(group, topic_.partitions());
}

int64_t OffsetsTopic::load(std::map<std::string, LoadedGroup>& loaded) {
  topic_.open();
  OffsetsReplay replay(loaded);
  topic_.replay([&replay](int32_t) { replay.start_partition(); },
                [&replay](const storage::RecordBatchView& batch) { replay_batch(batch, replay); });
  return replay.last_order();
}

std::optional<FlushPoints> OffsetsTopic::write_offsets(
    const std::string& group, const std::vector<std::pair<TopicPartition, OffsetAndMetadata>>& offsets) {
  const int64_t now = wall_clock_ms();
  storage::BatchBuilder b;
  for (const auto& [tp, o] : offsets) add(b, encode_offset_key(group, tp), encode_offset_value(o, topic_id(tp)), now);
  return topic_.append(partition_for(group), b.build());
}

std::optional<FlushPoints> OffsetsTopic::delete_offsets(const std::string& group,
                                                        const std::vector<TopicPartition>& tps) {
  const int64_t now = wall_clock_ms();
  storage::BatchBuilder b;
  for (const auto& tp : tps) add(b, encode_offset_key(group, tp), std::nullopt, now);
  return topic_.append(partition_for(group), b.build());
}

std::optional<FlushPoints> OffsetsTopic::write_group(const GroupRecord& group) {
  storage::BatchBuilder b;
  add(b, encode_group_key(group.group_id), encode_group_value(group), wall_clock_ms());
  return topic_.append(partition_for(group.group_id), b.build());
}

std::optional<FlushPoints> OffsetsTopic::write_consumer(const std::string& group,
                                                        const std::vector<ConsumerGroupRecord>& records) {
  if (records.empty()) return FlushPoints{};
  const int64_t now = wall_clock_ms();
  storage::BatchBuilder b;
  for (const auto& r : records) add(b, encode_consumer_key(r), encode_consumer_value(r), now);
  return topic_.append(partition_for(group), b.build());
}

std::optional<FlushPoints> OffsetsTopic::write_share(const std::string& group,
                                                     const std::vector<ShareGroupRecord>& records) {
  if (records.empty()) return FlushPoints{};
  const int64_t now = wall_clock_ms();
  storage::BatchBuilder b;
  for (const auto& r : records) add(b, encode_share_key(r), encode_share_value(r), now);
  return topic_.append(partition_for(group), b.build());
}

std::optional<FlushPoints> OffsetsTopic::write_streams(const std::string& group,
                                                       const std::vector<StreamsGroupRecord>& records) {
  if (records.empty()) return FlushPoints{};
  const int64_t now = wall_clock_ms();
  storage::BatchBuilder b;
  for (const auto& r : records) add(b, encode_streams_key(r), encode_streams_value(r), now);
  return topic_.append(partition_for(group), b.build());
}

std::optional<FlushPoints> OffsetsTopic::delete_group(const std::string& group,
                                                      const std::vector<TopicPartition>& tps) {
  const int64_t now = wall_clock_ms();
  storage::BatchBuilder b;
  for (const auto& tp : tps) add(b, encode_offset_key(group, tp), std::nullopt, now);
  add(b, encode_group_key(group), std::nullopt, now);
  return topic_.append(partition_for(group), b.build());
}

std::optional<FlushPoints> OffsetsTopic::write_pending(
    const std::string& group, int64_t producer_id, int16_t producer_epoch,
    const std::vector<std::pair<TopicPartition, OffsetAndMetadata>>& offsets, ErrorCode* error) {
  const int32_t partition = partition_for(group);
  int32_t seq = 0;
  try {
    // Continue the producer's sequence on this partition (a new epoch starts at 0).
    if (auto e = topic_.log(partition)->producer_state(producer_id); e && e->epoch == producer_epoch)
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
  return topic_.append(partition, b.build(), error);
}

std::optional<FlushPoints> OffsetsTopic::write_marker(int32_t partition, int64_t producer_id, int16_t producer_epoch,
                                                      bool commit, ErrorCode* error) {
  const std::string what =
      fmt::format("{} marker for producer {} epoch {}", commit ? "COMMIT" : "ABORT", producer_id, producer_epoch);
  return topic_.append_with(partition, what, error, [&](storage::Log& l) {
    return l.append_marker(producer_id, producer_epoch, commit, /*coordinator_epoch=*/0, /*transaction_version=*/0,
                           /*leader_epoch=*/0, wall_clock_ms());
  });
}

}  // namespace skiff::group
