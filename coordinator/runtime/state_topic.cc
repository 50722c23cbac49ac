#include "coordinator/runtime/state_topic.h"

#include <stdexcept>

#include "common/log_escape.h"
#include "common/wall_clock.h"
#include "coordinator/runtime/coordinator_log.h"
#include "coordinator/runtime/storage_errors.h"
#include "log/batch_builder.h"

namespace skiff::coordinator {
namespace {

// One partition's batches from its log start, in offset order.
void replay_log(const storage::Log& log, const std::string& where,
                const std::function<void(const storage::RecordBatchView&)>& fn) {
  storage::Offset next = log.log_start_offset();
  const storage::Offset end = log.log_end_offset();
  while (next.value < end.value) {
    auto rr = log.read(next, 1 << 20);
    if (!rr) throw std::runtime_error(where + ": read at offset " + std::to_string(next.value) + " failed");
    if (rr->slice.empty()) break;
    auto bytes = rr->slice.read_all();
    if (bytes.empty()) throw std::runtime_error(where + ": unreadable segment");
    storage::BatchIterator batches(bytes);
    storage::RecordBatchView batch;
    const int64_t before = next.value;
    while (batches.next(batch)) {
      if (batch.next_offset() <= next.value) continue;  // the part of the first batch before `next`
      fn(batch);
      next = storage::Offset(batch.next_offset());
    }
    if (next.value == before) throw std::runtime_error(where + ": no progress reading the log");
  }
}

}  // namespace

void for_each_record(const storage::RecordBatchView& batch, const std::string& topic,
                     const std::function<void(std::span<const uint8_t>, std::optional<std::span<const uint8_t>>)>& fn) {
  if (batch.compression() != storage::Compression::kNone)
    throw std::runtime_error(topic + ": compressed batch at offset " + std::to_string(batch.base_offset()) +
                             " (Skiff writes them uncompressed)");
  storage::RecordIterator it(batch);
  storage::RecordView r;
  while (it.next(r)) {
    if (!r.key) throw std::runtime_error(topic + ": record without a key");
    fn(*r.key, r.value);
  }
  if (!it.ok())
    throw std::runtime_error(topic + ": malformed records at offset " + std::to_string(batch.base_offset()));
}

StateTopic::StateTopic(storage::LogManager& logs, StateTopicConfig config)
    : logs_(logs),
      config_(std::move(config)),
      partitions_(config_.partitions),
      flusher_([this](const FlushPoints& points) { return flush(points); }) {}

StateTopic::~StateTopic() { flusher_.stop(); }

void StateTopic::open() {
  std::lock_guard lock(mu_);
  open_locked();
  if (parts_.empty()) return;
  if (static_cast<int32_t>(parts_.size()) != config_.partitions)
    coordinator::log().warn("{} has {} partitions; the configured {} is ignored, as in Kafka", config_.name,
                            parts_.size(), config_.partitions);
  partitions_ = static_cast<int32_t>(parts_.size());
}

void StateTopic::open_locked() {
  auto info = logs_.topic(config_.name);
  if (!info) return;
  std::vector<std::shared_ptr<storage::Log>> parts;
  for (int32_t p = 0; p < info->partitions; ++p) {
    auto l = logs_.get_log(config_.name, p);
    if (!l) throw std::runtime_error(config_.name + "-" + std::to_string(p) + " is missing");
    parts.push_back(std::move(l));
  }
  parts_ = std::move(parts);
}

void StateTopic::ensure_created() {
  std::lock_guard lock(mu_);
  ensure_created_locked();
}

// Also after a DeleteTopics of the topic: the next write creates it again,
// empty, as Kafka's coordinators would.
void StateTopic::ensure_created_locked() {
  if (!parts_.empty() && !parts_.front()->deleted()) return;
  parts_.clear();
  open_locked();
  if (!parts_.empty()) return;
  // segment.bytes has a 1 MiB floor as a topic config; below it (tests),
  // Kafka's internal.segment.bytes carries the size, as Kafka's own tests do.
  const char* size_key = config_.segment_bytes >= (1 << 20) ? "segment.bytes" : "internal.segment.bytes";
  std::map<std::string, std::string> overrides{{"cleanup.policy", config_.cleanup_policy},
                                               {size_key, std::to_string(config_.segment_bytes)},
                                               {"compression.type", "uncompressed"}};
  // -1 unless configured: only the topic's owner removes records.
  if (config_.cleanup_policy == "delete") overrides["retention.ms"] = std::to_string(config_.retention_ms);
  auto r = logs_.create_topic(config_.name, partitions_, overrides);
  if (!r && r.error().code != storage::LogErrc::kTopicAlreadyExists)
    throw std::runtime_error("cannot create " + config_.name + ": " + r.error().message);
  open_locked();
  if (parts_.empty()) throw std::runtime_error(config_.name + " is missing after its creation");
  coordinator::log().info("created the internal topic {} ({} partition(s), cleanup.policy={})", config_.name,
                          partitions_, config_.cleanup_policy);
}

bool StateTopic::exists() const {
  std::lock_guard lock(mu_);
  return !parts_.empty() && !parts_.front()->deleted();
}

void StateTopic::replay(const std::function<void(int32_t)>& start,
                        const std::function<void(const storage::RecordBatchView&)>& batch) const {
  std::vector<std::shared_ptr<storage::Log>> parts;
  {
    std::lock_guard lock(mu_);
    parts = parts_;
  }
  for (const auto& l : parts) {
    start(l->partition());
    replay_log(*l, config_.name + "-" + std::to_string(l->partition()), batch);
  }
}

std::shared_ptr<storage::Log> StateTopic::log(int32_t partition) {
  std::lock_guard lock(mu_);
  ensure_created_locked();
  if (partition < 0 || partition >= static_cast<int32_t>(parts_.size()))
    throw std::runtime_error(config_.name + " has no partition " + std::to_string(partition));
  return parts_[partition];
}

std::optional<FlushPoints> StateTopic::append_with(
    int32_t partition, const std::string& what, ErrorCode* error,
    const std::function<storage::Result<storage::Appended>(storage::Log&)>& op) {
  try {
    auto r = op(*log(partition));
    if (!r) {
      coordinator::log().error("{} on {}-{} failed: {}", what, config_.name, partition, escaped(r.error().message));
      if (error) *error = to_error_code(r.error());
      return std::nullopt;
    }
    FlushPoints fp;
    fp.ends[partition] = r->last_offset.value + 1;
    return fp;
  } catch (const std::exception& e) {
    coordinator::log().error("{} on {}-{} failed: {}", what, config_.name, partition, escaped(e.what()));
    if (error) *error = ErrorCode::kCoordinatorNotAvailable;
    return std::nullopt;
  }
}

std::optional<FlushPoints> StateTopic::append(int32_t partition, std::vector<uint8_t> batch, ErrorCode* error) {
  return append_with(partition, "append", error, [&batch](storage::Log& l) {
    return l.append(std::span<uint8_t>(batch), /*leader_epoch=*/0, wall_clock_ms());
  });
}

std::optional<FlushPoints> StateTopic::append_records(int32_t partition, const std::vector<StateRecord>& records,
                                                      ErrorCode* error) {
  storage::BatchBuilder b;
  const int64_t now = wall_clock_ms();
  for (const auto& r : records)
    b.add(std::string_view(r.key), r.value ? std::optional<std::string_view>(*r.value) : std::nullopt, now);
  return append(partition, b.build(), error);
}

std::optional<std::string> StateTopic::config_override(const std::string& key) const {
  auto info = logs_.topic(config_.name);
  if (!info) return std::nullopt;
  auto it = info->overrides.find(key);
  return it == info->overrides.end() ? std::nullopt : std::optional(it->second);
}

bool StateTopic::flush(const FlushPoints& points) {
  bool ok = true;
  for (auto [p, end] : points.ends) {
    std::shared_ptr<storage::Log> l;
    {
      std::lock_guard lock(mu_);
      if (p < 0 || p >= static_cast<int32_t>(parts_.size())) return false;
      l = parts_[p];
    }
    if (!l->flush_to(storage::Offset(end))) {
      coordinator::log().error("{}-{}: fsync failed", config_.name, p);
      ok = false;
    }
  }
  return ok;
}

}  // namespace skiff::coordinator
