#include "coordinator/txn/transaction_log.h"

#include <map>

#include "coordinator/txn/generated/transaction_log_key.h"
#include "coordinator/txn/generated/transaction_log_value.h"
#include "protocol/coordinator_record.h"

namespace skiff::txn {

namespace {

using protocol::TransactionLogKey;
using protocol::TransactionLogValue;

std::optional<std::vector<TransactionLogValue::PartitionsSchema>> to_schema(const TxnTransit& t) {
  if (t.state == TxnState::kEmpty) return std::nullopt;
  std::map<std::string, std::vector<int32_t>> by_topic;
  for (const auto& tp : t.partitions) by_topic[tp.topic].push_back(tp.partition);
  std::vector<TransactionLogValue::PartitionsSchema> out;
  for (auto& [topic, ids] : by_topic) {
    TransactionLogValue::PartitionsSchema p;
    p.topic = topic;
    p.partition_ids = std::move(ids);
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace

std::vector<uint8_t> encode_txn_log_key(const std::string& transactional_id) {
  TransactionLogKey key;
  key.transactional_id = transactional_id;
  return protocol::encode_prefixed(TransactionLogKey::kApiKey, key, 0);
}

std::vector<uint8_t> encode_txn_log_value(const TxnTransit& t, int16_t version) {
  TransactionLogValue v;
  v.producer_id = t.producer_id;
  v.producer_epoch = t.producer_epoch;
  v.transaction_timeout_ms = t.txn_timeout_ms;
  v.transaction_status = static_cast<int8_t>(t.state);
  v.transaction_partitions = to_schema(t);
  v.transaction_last_update_timestamp_ms = t.txn_last_update_ms;
  v.transaction_start_timestamp_ms = t.txn_start_ms;
  // Tagged fields exist only in the flexible version. Version 0 is written
  // only by a broker whose clients cannot use transaction version 2.
  if (version >= 1) {
    v.previous_producer_id = t.previous_producer_id;
    v.next_producer_id = t.next_producer_id;
    v.next_producer_epoch = t.next_producer_epoch;
    v.client_transaction_version = t.client_transaction_version;
  }
  return protocol::encode_prefixed(version, v, version);
}

TxnLogRecord decode_txn_log_record(std::span<const uint8_t> key, std::optional<std::span<const uint8_t>> value) {
  protocol::ByteReader kr(key);
  const int16_t type = kr.read_int16();
  if (type != TransactionLogKey::kApiKey) {
    throw protocol::DecodeError("__transaction_state: unknown key type " + std::to_string(type));
  }
  TransactionLogKey k;
  k.decode(kr, 0);
  TxnLogRecord rec{.transactional_id = std::move(k.transactional_id), .value = std::nullopt};
  if (!value) return rec;
  protocol::ByteReader vr(*value);
  const auto v = protocol::decode_versioned<TransactionLogValue>(vr, "__transaction_state");
  const auto state = state_from_id(v.transaction_status);
  if (!state) throw protocol::DecodeError("__transaction_state: unknown transaction status");
  TxnTransit t{.producer_id = v.producer_id,
               .previous_producer_id = v.previous_producer_id,
               .next_producer_id = v.next_producer_id,
               .producer_epoch = v.producer_epoch,
               .last_producer_epoch = kNoProducerEpoch,
               .next_producer_epoch = v.next_producer_epoch,
               .txn_timeout_ms = v.transaction_timeout_ms,
               .state = *state,
               .partitions = {},
               .txn_start_ms = v.transaction_start_timestamp_ms,
               .txn_last_update_ms = v.transaction_last_update_timestamp_ms,
               .client_transaction_version = v.client_transaction_version};
  if (*state != TxnState::kEmpty && v.transaction_partitions) {
    for (const auto& p : *v.transaction_partitions) {
      for (int32_t id : p.partition_ids) t.partitions.insert({p.topic, id});
    }
  }
  rec.value = std::move(t);
  return rec;
}

}  // namespace skiff::txn
