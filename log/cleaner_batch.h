// The log cleaner's per-batch rewrite (Kafka's MemoryRecords.filterTo with
// the cleaner's retention rules). Input: one whole batch as stored; output:
// the batch unchanged (every record kept, nothing to stamp: byte for byte), a
// rewritten batch, an empty batch, or nothing.
//
// A rewritten batch keeps baseOffset, partitionLeaderEpoch, attributes,
// producerId/epoch and baseSequence; it gets lastOffsetDelta of the last kept
// record, maxTimestamp over the kept records (LogAppendTime: unchanged), the
// new recordCount and batchLength, the records recompressed with the batch's
// own codec, and a new CRC-32C. Kept records are copied verbatim (their
// offset and timestamp deltas are relative to the kept base), except when the
// batch gets its delete horizon:
//
// Delete horizon (KIP-534, Kafka 3.0+): a batch that keeps a tombstone, or a
// transaction marker that may now go, and has no horizon yet, is rewritten
// with attribute bit 6 set and baseTimestamp = horizon = now +
// delete.retention.ms; every record's timestampDelta is re-encoded against
// the horizon (negative), so baseTimestamp + delta is still each record's own
// timestamp for every reader (ours, clients, Kafka's DumpLogSegments). A
// tombstone is kept while its batch has no horizon or now < horizon; a later
// batch rewrite keeps the horizon as it is. An empty batch has no horizon
// (baseTimestamp -1, as Kafka's writeEmptyHeader).
//
// Thread: pure functions over caller-owned buffers.
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "log/offset_map.h"
#include "log/record_batch.h"

namespace skiff::storage {

struct BatchFilterContext {
  const OffsetMap* map = nullptr;
  // The end of what the map covers: every record at or past it is kept as it
  // is, tombstones included (Kafka: "past latest offset"), since a later
  // record of its key may exist that this pass did not map.
  int64_t map_end = INT64_MAX;
  // The pass's clock and the topic's delete.retention.ms (see above).
  int64_t now_ms = 0;
  int64_t delete_retention_ms = 86'400'000;
  // pid -> last offset of the producer's last batch: such a batch is kept
  // (empty if need be) so the producer's sequence survives.
  const std::unordered_map<int64_t, int64_t>* producer_last_offsets = nullptr;
  size_t max_decompressed_bytes = 64u << 20;
  // Set per batch by the caller (cleaner_txn.h): the batch's records all go
  // (an aborted transaction's data, or a marker whose time has come); the
  // batch itself stays empty if it holds a producer's last sequence.
  bool discard_batch = false;
  // A control batch nothing of whose transaction is left: it gets its delete
  // horizon if it has none (it goes on a pass at or past it).
  bool marker_may_go = false;
};

struct BatchFilterStats {
  int64_t records_read = 0;
  int64_t records_kept = 0;
  bool corrupt = false;  // undecodable records: the batch is kept as it was
};

// Calls the key visitor for every keyed record of a data batch (control
// batches are skipped): (key, offset, is_tombstone). False if undecodable.
template <typename F>
bool for_each_keyed_record(const RecordBatchView& batch, size_t max_decompressed, F&& f);

// now + delete.retention.ms, saturated.
int64_t delete_horizon_for(int64_t now_ms, int64_t delete_retention_ms);

// Appends the filtered batch (if anything is kept) to `out`. A batch without
// records goes unless it holds a producer's last sequence (Kafka's DELETE_EMPTY).
void filter_batch(const RecordBatchView& batch, const BatchFilterContext& ctx, std::vector<uint8_t>& out,
                  BatchFilterStats& stats);

// The batch with its records decompressed (attributes' codec cleared), for
// RecordIterator. Empty vector on corrupt input. Uncompressed: a copy.
std::vector<uint8_t> uncompressed_copy(const RecordBatchView& batch, size_t max_decompressed);

template <typename F>
bool for_each_keyed_record(const RecordBatchView& batch, size_t max_decompressed, F&& f) {
  if (batch.is_control()) return true;
  std::vector<uint8_t> plain = uncompressed_copy(batch, max_decompressed);
  if (plain.empty()) return false;
  RecordBatchView v(plain);
  RecordIterator it(v);
  RecordView r;
  while (it.next(r)) {
    if (r.key) f(*r.key, r.offset(v), !r.value.has_value());
  }
  return it.ok();
}

}  // namespace skiff::storage
