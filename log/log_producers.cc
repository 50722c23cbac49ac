// Log: idempotent-producer state — rebuilt at open from the newest snapshot
// plus the batch headers after it, snapshotted at roll and close (see
// producer_state.h), and exposed for DescribeProducers.

#include <cstring>

#include "log/chunk_reader.h"
#include "log/log.h"
#include "log/record_batch.h"
#include "log/storage_log.h"

namespace skiff::storage {

namespace {

// Reads the control batch at `pos` into `b` (control, commit, coordinator
// epoch); false if it is not a COMMIT/ABORT marker (skipped, as Kafka skips
// unknown control types) or could not be read.
bool read_marker(ChunkReader& reader, uint64_t pos, int64_t size, ProducerBatch& b) {
  if (size > int64_t{64} * 1024) return false;  // a marker is ~80 bytes
  const uint8_t* p = reader.get(pos, static_cast<size_t>(size));
  if (!p) return false;
  RecordBatchView v(std::span<uint8_t>(const_cast<uint8_t*>(p), static_cast<size_t>(size)));
  auto m = parse_marker(v);
  if (!m) return false;
  b.control = true;
  b.commit = m->commit;
  b.coordinator_epoch = m->coordinator_epoch;
  return true;
}

enum class BatchRead { kNext, kStop };

// The producer fields of the batch at `pos` (`size` bytes, header `h`) into `b`; b stays
// without a producer (id -1) when the batch is not one to replay: before
// `from`, without a producer, of an old magic, or a control batch that is no
// COMMIT/ABORT marker. kStop: the header could not be read again.
BatchRead read_producer_batch(ChunkReader& reader, const uint8_t* h, uint64_t pos, int64_t size, int64_t from,
                              ProducerBatch& b) {
  const int64_t base = static_cast<int64_t>(load_be64(h + batch_layout::kBaseOffset));
  const int32_t delta = static_cast<int32_t>(load_be32(h + batch_layout::kLastOffsetDelta));
  const int64_t pid = static_cast<int64_t>(load_be64(h + batch_layout::kProducerId));
  const uint16_t attrs = load_be16(h + batch_layout::kAttributes);
  if (base + delta < from || pid < 0 || static_cast<int8_t>(h[batch_layout::kMagic]) != batch_layout::kCurrentMagic)
    return BatchRead::kNext;
  b.transactional = attrs & batch_layout::kTransactionalBit;
  if (attrs & batch_layout::kControlBit) {
    if (!read_marker(reader, pos, size, b)) return BatchRead::kNext;
    h = reader.get(pos, batch_layout::kHeaderSize);  // the reader may have moved its buffer
    if (!h) return BatchRead::kStop;
  }
  b.producer_id = pid;
  b.epoch = static_cast<int16_t>(load_be16(h + batch_layout::kProducerEpoch));
  b.first_seq = static_cast<int32_t>(load_be32(h + batch_layout::kBaseSequence));
  b.last_seq = add_sequence(b.first_seq, delta);
  b.first_offset = base;
  b.last_offset = base + delta;
  b.timestamp = static_cast<int64_t>(load_be64(h + batch_layout::kMaxTimestamp));
  if (b.control) b.first_seq = b.last_seq = -1;
  return BatchRead::kNext;
}

}  // namespace

void Log::rebuild_producer_state(const std::vector<int64_t>* snapshots) {
  auto scan = [this](int64_t from, const ProducerStateManager::BatchVisitor& visit) {
    scan_producer_batches(from, visit);
  };
  // Aborts replayed from the log are re-added to the .txnindex if a crash
  // lost them (Kafka rebuilds the txn index of the segments it recovers).
  auto on_completed = [this](const CompletedTxn& t, int64_t lso) {
    if (!t.aborted) return;
    auto seg = floor_segment(t.last_offset);
    if (!seg) return;
    if (auto r =
            txn_index_.add_if_missing(seg->base_offset().value, {t.producer_id, t.first_offset, t.last_offset, lso});
        !r)
      storage_log().error("log {}: rebuilding the transaction index: {}", dir_, describe(r.error()));
  };
  producer_batches_replayed_ = producers_.load(log_start_.load(std::memory_order_acquire),
                                               leo_.load(std::memory_order_acquire), scan, on_completed, snapshots);
}

void Log::scan_producer_batches(int64_t from, const ProducerStateManager::BatchVisitor& visit) {
  if (from >= leo_.load(std::memory_order_acquire)) return;  // snapshot at the end (clean stop): nothing to read
  auto segs = snapshot();
  for (size_t i = 0; i < segs.size(); ++i) {
    if (i + 1 < segs.size() && segs[i + 1]->base_offset().value <= from) continue;  // wholly before `from`
    const auto& seg = segs[i];
    auto file = seg->acquire_file();
    if (!file) {
      storage_log().warn("log {}: opening segment {} for producer state: {}", dir_, seg->base_offset().value,
                         std::strerror(file.error().sys_errno));
      continue;
    }
    ChunkReader reader((*file)->fd(), seg->size(), size_t{64} * 1024);
    uint64_t pos = 0;
    while (const uint8_t* h = reader.get(pos, batch_layout::kHeaderSize)) {
      const int64_t size = batch_size_from_prefix(h, batch_layout::kHeaderSize);
      if (size < static_cast<int64_t>(batch_layout::kHeaderSize)) break;
      ProducerBatch b;
      if (read_producer_batch(reader, h, pos, size, from, b) == BatchRead::kStop) break;
      if (b.producer_id >= 0) visit(b);
      pos += static_cast<uint64_t>(size);
    }
    if (auto st = reader.status(); !st)
      storage_log().warn("log {}: reading segment {} for producer state: {}", dir_, seg->base_offset().value,
                         std::strerror(st.error().sys_errno));
  }
}

std::vector<std::pair<int64_t, ProducerEntry>> Log::producer_states() {
  std::lock_guard lk(mu_);
  return {producers_.producers().begin(), producers_.producers().end()};
}

std::optional<ProducerEntry> Log::producer_state(int64_t producer_id) {
  std::lock_guard lk(mu_);
  return producers_.entry(producer_id);
}

}  // namespace skiff::storage
