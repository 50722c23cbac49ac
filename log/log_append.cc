// Log: the write path (validate, assign offsets, write, publish), rolling,
// and group-committed flushes.
#include <fmt/format.h>

#include <boost/container/small_vector.hpp>
#include <climits>
#include <cstring>

#include "log/cleaner_batch.h"
#include "log/file_util.h"
#include "log/log.h"
#include "log/record_batch.h"
#include "log/storage_log.h"

namespace skiff::storage {

namespace {

Error fail(LogErrc e, std::string msg) { return Error::of(e, std::move(msg)); }

// Kafka's message.timestamp.{before,after}.max.ms checks, on the batch's
// first and max timestamps (header fields: no record walk needed).
bool timestamp_ok(int64_t ts, int64_t now, const LogConfig& c) {
  if (ts == kNoTimestamp) return true;
  if (ts < now)
    return static_cast<uint64_t>(now) - static_cast<uint64_t>(ts) <=
           static_cast<uint64_t>(c.message_timestamp_before_max_ms);
  return static_cast<uint64_t>(ts) - static_cast<uint64_t>(now) <=
         static_cast<uint64_t>(c.message_timestamp_after_max_ms);
}

// Kafka's LogValidator.validateKey: on a compacted topic every record of a
// data batch needs a key. `tp`: the partition as Kafka prints it ("t-0").
// Messages are Kafka 4.4's, byte for byte (its LogValidator and
// processRecordErrors, RecordError.toString).
std::optional<Error> check_keys(const RecordBatchView& v, const std::string& tp, size_t max_bytes) {
  std::vector<uint8_t> plain = uncompressed_copy(v, max_bytes);
  if (plain.empty()) return fail(LogErrc::kCorruptMessage, "undecodable records");
  RecordBatchView pv(plain);
  RecordIterator it(pv);
  RecordView r;
  std::vector<RecordError> errors;
  for (int32_t i = 0; it.next(r); ++i) {
    if (!r.key) errors.push_back({i, "Compacted topic cannot accept message without key in topic partition " + tp});
  }
  if (!it.ok()) return fail(LogErrc::kCorruptMessage, "undecodable records");
  if (errors.empty()) return std::nullopt;
  std::string shown;
  for (size_t i = 0; i < errors.size() && i < 3; ++i)
    shown += fmt::format("{}RecordError(batchIndex={}, message='{}')", i ? ", " : "", errors[i].batch_index,
                         errors[i].message);
  Error res = fail(LogErrc::kInvalidRecord,
                   fmt::format("One or more records have been rejected due to {} record errors in total, and "
                               "only showing the first three errors at most: [{}]",
                               errors.size(), shown));
  res.record_errors = std::move(errors);
  return res;
}

// What step 1 of an append learns, carried into the steps under the lock.
// Producers send one batch per partition: no allocation for the usual few.
struct ValidatedAppend {
  boost::container::small_vector<BatchAppendInfo, 4> infos;  // last_offset is set in step 3
  std::vector<ProducerBatch> producer_batches;               // idempotent ones (producer id >= 0)
  std::vector<size_t> producer_batch_index;                  // their index in infos
  int64_t total_records = 0;
};

// Step 1 for one batch: its header, CRC and record length prefixes (batches
// are stored as sent), then what the topic's config allows.
std::optional<Error> check_batch(const RecordBatchView& v, const LogConfig& cfg, int64_t now_ms, bool is_marker,
                                 const std::filesystem::path& dir) {
  if (static_cast<int64_t>(v.size_in_bytes()) > cfg.max_message_bytes) {
    return fail(LogErrc::kMessageTooLarge, fmt::format("batch of {} bytes exceeds max.message.bytes {}",
                                                       v.size_in_bytes(), cfg.max_message_bytes));
  }
  if (auto c = v.validate_for_append(); !c) return fail(c.error, c.reason);
  if (v.is_control() != is_marker)
    return fail(LogErrc::kInvalidRecord, "control batches may not be produced by clients");
  if (v.is_transactional() && v.producer_id() < 0)
    return fail(LogErrc::kInvalidRecord, "transactional batch without a producer id");
  if (cfg.compact && !is_marker) {
    if (auto bad = check_keys(v, dir.filename().string(), 64u << 20)) return bad;
  }
  if (cfg.message_timestamp_type != TimestampType::kLogAppendTime) {
    if (v.timestamp_type() == TimestampType::kLogAppendTime)
      return fail(LogErrc::kInvalidTimestamp, "LogAppendTime batch on a CreateTime topic");
    if (!timestamp_ok(v.max_timestamp(), now_ms, cfg) || !timestamp_ok(v.base_timestamp(), now_ms, cfg))
      return fail(LogErrc::kInvalidTimestamp, "timestamp out of the range allowed by message.timestamp.*.max.ms");
  }
  return std::nullopt;
}

// The producer-state view of an idempotent batch; offsets come under the lock.
ProducerBatch producer_batch_of(const RecordBatchView& v, const TxnMarker* marker,
                                const std::optional<VerificationGuard>& guard) {
  ProducerBatch b;
  b.producer_id = v.producer_id();
  b.epoch = v.producer_epoch();
  b.first_seq = v.base_sequence();
  b.last_seq = add_sequence(b.first_seq, v.last_offset_delta());
  b.timestamp = v.max_timestamp();
  b.transactional = v.is_transactional();
  b.needs_verification = guard.has_value();
  b.guard = guard.value_or(kNoVerification);
  if (marker) {
    b.control = true;
    b.commit = marker->commit;
    b.coordinator_epoch = marker->coordinator_epoch;
  }
  return b;
}

// Step 1: every batch checked, before the log is touched (outside the lock).
std::optional<Error> validate_batches(std::span<uint8_t> records, const LogConfig& cfg, int64_t now_ms,
                                      const TxnMarker* marker, const std::optional<VerificationGuard>& guard,
                                      const std::filesystem::path& dir, ValidatedAppend& out) {
  BatchIterator it(records);
  RecordBatchView v;
  while (it.next(v)) {
    if (auto bad = check_batch(v, cfg, now_ms, marker != nullptr, dir)) return bad;
    if (v.producer_id() >= 0) {
      out.producer_batches.push_back(producer_batch_of(v, marker, guard));
      out.producer_batch_index.push_back(out.infos.size());
    }
    out.infos.push_back({static_cast<uint32_t>(v.size_in_bytes()), v.last_offset_delta(), Offset(), v.max_timestamp()});
    out.total_records += static_cast<int64_t>(v.last_offset_delta()) + 1;
  }
  if (!it.error()) return fail(it.error().error, it.error().reason);
  return std::nullopt;
}

// Step 2: the active segment cannot take `bytes` more (size, age, full
// indexes, or offsets beyond the index's 32-bit relative range).
bool must_roll(LogSegment& seg, size_t bytes, int64_t now_ms, const LogConfig& cfg, int64_t leo,
               int64_t total_records) {
  const uint64_t seg_size = seg.size();
  return seg_size > 0 && (static_cast<int64_t>(seg_size + bytes) > cfg.segment_size() ||
                          now_ms - seg.roll_base_ms() > cfg.segment_ms || seg.offset_index().file().full() ||
                          seg.time_index().full() || leo + total_records - 1 - seg.base_offset().value > INT32_MAX);
}

// Step 3: offsets from `leo` written into the batches in place (outside the
// CRC), LogAppendTime if asked; sets infos' last offsets.
// Returns the offset after the last one.
int64_t assign_offsets(std::span<uint8_t> records, int64_t leo, int32_t leader_epoch, bool log_append_time,
                       int64_t now_ms, boost::container::small_vector<BatchAppendInfo, 4>& infos) {
  int64_t next = leo;
  BatchIterator it(records);
  RecordBatchView v;
  for (size_t i = 0; it.next(v); ++i) {
    v.set_base_offset(next);
    v.set_partition_leader_epoch(leader_epoch);
    if (log_append_time) v.set_log_append_time(now_ms);
    infos[i].last_offset = Offset(next + infos[i].last_offset_delta);
    infos[i].max_timestamp = v.max_timestamp();
    next = infos[i].last_offset.value + 1;
  }
  return next;
}

}  // namespace

Result<Appended> Log::append(std::span<uint8_t> records, int32_t leader_epoch) {
  return append(records, leader_epoch, wall_clock_ms());
}

Result<Appended> Log::append(std::span<uint8_t> records, int32_t leader_epoch, int64_t now_ms) {
  return append_impl(records, leader_epoch, now_ms, nullptr);
}

VerificationGuard Log::begin_txn_verification(int64_t producer_id) {
  std::lock_guard lk(mu_);
  return producers_.begin_verification(producer_id);
}

bool Log::txn_verification_valid(int64_t producer_id, VerificationGuard guard) {
  std::lock_guard lk(mu_);
  return producers_.verification_valid(producer_id, guard);
}

Result<Appended> Log::append_verified(std::span<uint8_t> records, int64_t now_ms, VerificationGuard guard) {
  return append_impl(records, /*leader_epoch=*/0, now_ms, nullptr, guard);
}

Result<Appended> Log::append_marker(int64_t producer_id, int16_t producer_epoch, bool commit, int32_t coordinator_epoch,
                                    int16_t transaction_version, int32_t leader_epoch, int64_t now_ms) {
  const TxnMarker marker{commit, coordinator_epoch, transaction_version};
  std::vector<uint8_t> batch = build_marker_batch(producer_id, producer_epoch, marker, now_ms);
  return append_impl(std::span<uint8_t>(batch), leader_epoch, now_ms, &marker);
}

// `marker` set: `records` is the one control batch append_marker built.
Result<Appended> Log::append_impl(std::span<uint8_t> records, int32_t leader_epoch, int64_t now_ms,
                                  const TxnMarker* marker, std::optional<VerificationGuard> guard) {
  auto cfg = config();
  const bool log_append_time = cfg->message_timestamp_type == TimestampType::kLogAppendTime;
  // 1. Validate every batch before touching the log (outside the lock).
  ValidatedAppend a;
  if (auto bad = validate_batches(records, *cfg, now_ms, marker, guard, dir_, a)) return unexpected(std::move(*bad));
  if (a.infos.empty()) return Appended{};

  std::unique_lock lk(mu_);
  if (closed_.load()) return unexpected(fail(LogErrc::kUnknownTopicOrPartition, "log is closed or deleted"));
  const int64_t leo = leo_.load(std::memory_order_relaxed);
  // 1b. Producers: duplicates, gaps, stale epochs, transaction state.
  if (!a.producer_batches.empty()) {
    std::vector<int64_t> deltas(a.infos.size());
    for (size_t i = 0; i < a.infos.size(); ++i) deltas[i] = a.infos[i].last_offset_delta;
    if (auto answer = check_producers_locked(a.producer_batches, a.producer_batch_index, deltas, leo, marker))
      return std::move(*answer);
  }
  // 2. Roll if the active segment can't take this append.
  auto seg = active();
  // A segment restored from a clean close gets its index room now.
  if (auto r = seg->ensure_appendable(static_cast<size_t>(cfg->segment_index_bytes)); !r) {
    storage_log().error("log {}: extending the active segment's indexes: {}", dir_, describe(r.error()));
    return unexpected(fail(LogErrc::kStorageError, "could not extend the active segment's indexes"));
  }
  if (must_roll(*seg, records.size(), now_ms, *cfg, leo, a.total_records)) {
    if (auto r = roll_locked(now_ms); !r) return unexpected(fail(r.error().code, "could not roll a new segment"));
    seg = active();
  }
  // 3. Assign offsets in place (outside the CRC), LogAppendTime if asked.
  const int64_t next = assign_offsets(records, leo, leader_epoch, log_append_time, now_ms, a.infos);
  // 4. Write + index, producer state, then publish the end, the LSO and the
  // bytes as one (read_once reads against one publish).
  auto written = seg->append(records, std::span<const BatchAppendInfo>(a.infos.data(), a.infos.size()),
                             cfg->index_interval_bytes, now_ms);
  if (!written) {
    storage_log().error("log {}: append failed: {}", dir_, describe(written.error()));
    return unexpected(fail(LogErrc::kStorageError, fmt::format("write failed: {}", describe(written.error()))));
  }
  for (const auto& b : a.producer_batches) {
    if (b.control)
      end_txn_locked(b);
    else
      producers_.update(b);
  }
  publish_locked(next, lso_for_locked(next), *seg, *written);
  Appended res;
  res.base_offset = Offset(leo);
  res.last_offset = Offset(next - 1);
  res.log_append_time = log_append_time ? now_ms : -1;
  res.log_start_offset = log_start_offset();
  res.record_count = static_cast<int32_t>(a.total_records);
  const bool need_flush = next - recovery_point_.load(std::memory_order_acquire) >= cfg->flush_messages;
  lk.unlock();
  // 5. flush.messages: durable before we answer; concurrent appends share it.
  if (need_flush && !flush_to(Offset(next))) return unexpected(fail(LogErrc::kStorageError, "fsync failed"));
  return res;
}

// A retry of an idempotent batch is answered with its first offsets and not
// written again; a gap, a stale epoch or a bad marker is refused. One map
// lookup per producer batch. Fills in the batches' offsets. nullopt: go on.
std::optional<Result<Appended>> Log::check_producers_locked(std::vector<ProducerBatch>& batches,
                                                            const std::vector<size_t>& batch_index,
                                                            const std::vector<int64_t>& deltas, int64_t leo,
                                                            const TxnMarker* marker) {
  std::vector<int64_t> first_offsets(deltas.size());
  for (size_t i = 0, next = 0; i < deltas.size(); ++i) {
    first_offsets[i] = leo + static_cast<int64_t>(next);
    next += static_cast<size_t>(deltas[i]) + 1;
  }
  std::vector<ProducerBatch> staged;
  for (size_t k = 0; k < batches.size(); ++k) {
    ProducerBatch& b = batches[k];
    const size_t i = batch_index[k];
    b.first_offset = first_offsets[i];
    b.last_offset = first_offsets[i] + deltas[i];
    if (b.control) {
      auto c = producers_.check_marker(b.producer_id, b.epoch, b.coordinator_epoch, marker->transaction_version);
      if (c.error != LogErrc::kNone) return unexpected(fail(c.error, std::move(c.message)));
      continue;
    }
    auto check = producers_.check(b, staged);
    if (check.duplicate) {
      Appended dup;
      dup.duplicate = true;
      dup.base_offset = Offset(check.duplicate->first_offset);
      dup.last_offset = Offset(check.duplicate->last_offset);
      dup.log_start_offset = log_start_offset();
      return dup;
    }
    if (check.error != LogErrc::kNone) return unexpected(fail(check.error, std::move(check.message)));
    staged.push_back(b);
  }
  return std::nullopt;
}

void Log::end_txn_locked(const ProducerBatch& m) {
  producers_.clear_verification(m.producer_id);  // a verification before this marker is stale
  auto done =
      producers_.complete_txn(m.producer_id, m.epoch, m.coordinator_epoch, m.first_offset, m.commit, m.timestamp);
  if (!done || !done->aborted) return;
  const AbortedTxn t{done->producer_id, done->first_offset, done->last_offset,
                     producers_.last_stable_offset_after(*done)};
  // The entry is kept in memory even if the file write fails (reads stay
  // right); recovery re-adds it to the file from the marker in the log.
  if (auto r = txn_index_.append(active()->base_offset().value, t); !r)
    storage_log().error("log {}: writing the transaction index: {}", dir_, describe(r.error()));
}

int64_t Log::lso_for_locked(int64_t leo) const {
  if (auto first = producers_.first_unstable_offset())
    return std::min(std::max(*first, log_start_.load(std::memory_order_relaxed)), leo);
  return leo;
}

void Log::update_lso_locked() {
  lso_.store(lso_for_locked(leo_.load(std::memory_order_relaxed)), std::memory_order_release);
}

// The stores are release, so the odd sequence number is visible before any
// of them, and each of them before the even one.
void Log::publish_locked(int64_t leo, int64_t lso, LogSegment& active, uint64_t size) {
  const uint64_t seq = publish_seq_.load(std::memory_order_relaxed);
  publish_seq_.store(seq + 1, std::memory_order_relaxed);
  leo_.store(leo, std::memory_order_release);
  lso_.store(lso, std::memory_order_release);
  active.publish(size);
  publish_seq_.store(seq + 2, std::memory_order_release);
}

Result<void> Log::roll(int64_t now_ms) {
  std::lock_guard lk(mu_);
  if (closed_.load()) return unexpected(Error::of(LogErrc::kUnknownTopicOrPartition));
  return roll_locked(now_ms);
}

Result<void> Log::roll_locked(int64_t now_ms) {
  auto old = active();
  const int64_t new_base = leo_.load(std::memory_order_relaxed);
  if (old->size() == 0 || old->base_offset().value == new_base) return {};
  auto cfg = config();
  const auto index_bytes = static_cast<size_t>(cfg->segment_index_bytes);
  auto created = LogSegment::create(fd_cache_, dir_, new_base, index_bytes, now_ms);
  if (!created) {
    storage_log().error("log {}: roll to {} failed: {}", dir_, new_base, describe(created.error()));
    Error e = std::move(created.error());
    e.code = LogErrc::kStorageError;
    return unexpected(std::move(e));
  }
  std::shared_ptr<LogSegment> seg = std::move(*created);
  if (cfg->preallocate) seg->preallocate(static_cast<uint64_t>(cfg->segment_size()));
  if (auto r = old->become_inactive(); !r) {
    storage_log().warn("log {}: finishing segment {} (index trim, fsync, block trim) failed: {}", dir_,
                       old->base_offset().value, describe(r.error()));
  }
  if (int rc = fsync_dir(dir_); rc != 0) storage_log().warn("log {}: fsync dir: {}", dir_, std::strerror(rc));
  {
    std::unique_lock slk(segments_mu_);
    segments_[new_base] = seg;
  }
  pending_roll_flush_.store(new_base, std::memory_order_release);
  if (auto r = producers_.take_snapshot(new_base, prune_snapshots()); !r)
    storage_log().warn("log {}: producer snapshot at {} failed: {}", dir_, new_base, describe(r.error()));
  return {};
}

Result<void> Log::flush_to(Offset offset) {
  std::unique_lock lk(flush_mu_);
  while (true) {
    if (recovery_point_.load(std::memory_order_acquire) >= offset.value) return {};
    if (!flush_in_progress_) break;
    flush_cv_.wait(lk);
  }
  flush_in_progress_ = true;
  lk.unlock();
  // Everything published so far rides along: that is the group commit.
  const int64_t target = leo_.load(std::memory_order_acquire);
  const int64_t rp = recovery_point_.load(std::memory_order_acquire);
  std::vector<std::shared_ptr<LogSegment>> segs;
  {
    std::shared_lock slk(segments_mu_);
    auto it = segments_.upper_bound(rp);
    if (it != segments_.begin()) --it;
    for (; it != segments_.end(); ++it) segs.push_back(it->second);
  }
  Result<void> rc;
  for (size_t i = 0; i < segs.size() && rc; ++i) {
    auto& s = segs[i];
    if (s->fully_flushed()) continue;
    rc = s->flush_log();
    // Inactive segments' indexes were fsynced when they became inactive.
    if (rc && i + 1 < segs.size()) s->mark_fully_flushed();
  }
  lk.lock();
  flush_in_progress_ = false;
  if (rc) {
    int64_t cur = recovery_point_.load(std::memory_order_relaxed);
    if (target > cur) recovery_point_.store(target, std::memory_order_release);
    last_flush_ms_.store(wall_clock_ms(), std::memory_order_relaxed);
  }
  flush_cv_.notify_all();
  lk.unlock();
  if (!rc) {
    storage_log().error("log {}: flush failed: {}", dir_, describe(rc.error()));
    rc.error().code = LogErrc::kStorageError;
  }
  return rc;
}

int64_t Log::flush_target(int64_t now_ms, int64_t rolled) const {
  const int64_t rp = recovery_point_.load(std::memory_order_acquire);
  const int64_t leo = leo_.load(std::memory_order_acquire);
  if (leo <= rp) return -1;  // everything is durable (a rolled base is never past the end)
  const int64_t flush_ms = config()->flush_ms;
  if (flush_ms != LogConfig::kMaxLong && now_ms - last_flush_ms_.load(std::memory_order_relaxed) >= flush_ms)
    return leo;
  return rolled > rp ? rolled : -1;
}

bool Log::flush_due(int64_t now_ms) const {
  return flush_target(now_ms, pending_roll_flush_.load(std::memory_order_acquire)) >= 0;
}

void Log::maybe_flush(int64_t now_ms) {
  if (closed_.load()) return;
  const int64_t rolled = pending_roll_flush_.exchange(-1, std::memory_order_acq_rel);
  // A failed flush is logged by flush_to and tried again on the next round.
  if (const int64_t target = flush_target(now_ms, rolled); target >= 0) (void)flush_to(Offset(target));
}

}  // namespace skiff::storage
