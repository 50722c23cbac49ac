// Control batches: the COMMIT / ABORT markers the transaction coordinator
// writes to every partition of a transaction (Kafka's EndTransactionMarker).
// Built here for Log::append_marker and parsed on append and on recovery.
// Stateless functions; any thread.
//
// A marker is a magic-2 batch (record_batch.h) with attributes
// transactional (0x10) | control (0x20), the producer id and epoch of the
// transaction, baseSequence -1, and exactly one uncompressed record:
//   key   = version int16 (=0) | type int16 (0 = ABORT, 1 = COMMIT)
//   value = version int16 (=0) | coordinatorEpoch int32
// (Kafka's ControlRecordType key and EndTxnMarker value v0; Kafka reads
// the value version it knows and ignores trailing bytes of newer ones.)
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "log/record_batch.h"

namespace skiff::storage {

inline constexpr int16_t kControlTypeAbort = 0;
inline constexpr int16_t kControlTypeCommit = 1;

struct TxnMarker {
  bool commit = false;
  int32_t coordinator_epoch = -1;
  int16_t transaction_version = 0;  // not on disk: how Log checks the epoch
};

std::vector<uint8_t> build_marker_batch(int64_t producer_id, int16_t producer_epoch, const TxnMarker& marker,
                                        int64_t timestamp_ms);

// The marker of a control batch, or nullopt if it is not a well-formed
// COMMIT/ABORT marker (another control type, compressed, not one record,
// short key/value).
std::optional<TxnMarker> parse_marker(const RecordBatchView& batch);

}  // namespace skiff::storage
