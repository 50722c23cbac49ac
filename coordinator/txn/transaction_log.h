// The __transaction_state record format: Kafka's own, so that Kafka's tools
// (kafka-dump-log --transaction-log-decoder) read what Skiff writes.
//
// Byte layout of one record (as Kafka's TransactionLog / MessageUtil write it):
//   key   = int16 record type (0 = TransactionLogKey) + TransactionLogKey at v0
//           (int16-length string TransactionalId)
//   value = int16 version + TransactionLogValue at that version; the version
//           follows the broker's finalized transaction.version (1, flexible
//           with tagged fields, from transaction version 2; else 0), as Kafka
//           4.4's TransactionLog.valueToBytes; a null value (tombstone)
//           removes the id.
// TransactionLogKey/Value are generated from coordinator/txn/schemas (see there).
// In Empty the partitions are written as null, as Kafka does.
//
// Threads: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "coordinator/txn/txn_metadata.h"

namespace skiff::txn {

struct TxnLogRecord {
  std::string transactional_id;
  std::optional<TxnTransit> value;  // nullopt: tombstone (the id expired)
};

std::vector<uint8_t> encode_txn_log_key(const std::string& transactional_id);
// TransactionLogValue version written under a finalized transaction.version.
inline int16_t txn_log_value_version(int16_t server_transaction_version) {
  return supports_epoch_bump(server_transaction_version) ? 1 : 0;
}
std::vector<uint8_t> encode_txn_log_value(const TxnTransit& t, int16_t value_version);

// Throws protocol::DecodeError on an unknown key type or value version, a bad
// state byte or truncated bytes: a corrupt __transaction_state is reported at
// load, never half-applied.
TxnLogRecord decode_txn_log_record(std::span<const uint8_t> key, std::optional<std::span<const uint8_t>> value);

}  // namespace skiff::txn
