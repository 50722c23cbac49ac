// The two seams between the transaction coordinator and the rest of the
// broker that are not TxnCoordinator's own ports (txn_ports.h):
//
//  - TxnProduceGate: what Produce asks before it appends transactional
//    batches. Implemented by the coordinator's host (server side); used by
//    the Produce handler. TV1 clients (Produce < 12) only verify that each
//    partition is in the ongoing transaction of (id, producer id, epoch);
//    TV2 clients (Produce >= 12) add it implicitly (Kafka 4.4's
//    AddPartitionsToTxn-from-the-broker, KIP-890).
//  - TxnOffsetMarkerSink: the group side of a COMMIT/ABORT marker for a
//    `__consumer_offsets` partition (KIP-447): pending TxnOffsetCommit
//    offsets of that producer become committed offsets, or are dropped.
//    Implemented by the group coordinator, which appends the control batch
//    to that __consumer_offsets partition, then applies it; called by the
//    marker writer and WriteTxnMarkers for those partitions.
//
// Threads: interfaces only. `done` may run on any thread (typically the
// coordinator's strand or a group thread), possibly before the call returns;
// it must not block.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>

#include "coordinator/txn/txn_metadata.h"
#include "protocol/error_codes.h"

namespace skiff::txn {

class TxnProduceGate {
 public:
  virtual ~TxnProduceGate() = default;
  struct Check {
    std::string transactional_id;
    int64_t producer_id = kNoProducerId;
    int16_t epoch = kNoProducerEpoch;
    std::set<TopicPartition> partitions;
    bool implicit_add = false;  // true for Produce v12+ (transaction version 2)
  };
  // Per partition: kNone = append it; any other code is the partition's answer.
  virtual void check(Check check, std::function<void(std::map<TopicPartition, ErrorCode>)> done) = 0;
};

class TxnOffsetMarkerSink {
 public:
  virtual ~TxnOffsetMarkerSink() = default;
  // Applies (commit) or drops (abort) the pending transactional offsets of
  // `producer_id` for every group whose offsets partition is
  // `offsets_partition`; `done(kNone)` once the result is durable.
  virtual void on_marker(int64_t producer_id, int16_t producer_epoch, bool commit, int32_t offsets_partition,
                         std::function<void(ErrorCode)> done) = 0;
};

}  // namespace skiff::txn
