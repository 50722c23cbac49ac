// TxnCoordinator: the admin views (DescribeTransactions, ListTransactions),
// the timers (timed-out aborts, transactional id expiration) and replay of
// __transaction_state at startup. See txn_coordinator.h.
#include "common/kafka_hash.h"
#include "coordinator/txn/txn_coordinator.h"
#include "coordinator/txn/txn_log.h"

namespace skiff::txn {

TopicPartition TxnCoordinator::offsets_partition_for(const std::string& group_id) const {
  return {"__consumer_offsets", skiff::offsets_partition_for(group_id, config_.offsets_topic_partitions)};
}

TxnDescription TxnCoordinator::describe(const std::string& id) const {
  TxnDescription d;
  d.transactional_id = id;
  if (id.empty()) {
    d.error = ErrorCode::kInvalidRequest;
    return d;
  }
  const TxnMetadata* m = find(id);
  if (m == nullptr) {
    d.error = ErrorCode::kTransactionalIdNotFound;
    return d;
  }
  const TxnTransit& c = m->current();
  d.state = std::string(state_name(c.state));
  d.timeout_ms = c.txn_timeout_ms;
  d.start_ms = c.txn_start_ms;
  d.producer_id = c.producer_id;
  d.epoch = c.producer_epoch;
  d.partitions = c.partitions;
  return d;
}

TxnListing TxnCoordinator::list(const std::set<int64_t>& producer_ids, const std::set<std::string>& states,
                                int64_t min_duration_ms,
                                const std::function<bool(const std::string&)>& id_filter) const {
  TxnListing out;
  std::set<TxnState> wanted;
  for (const auto& name : states) {
    if (auto s = state_from_name(name)) {
      wanted.insert(*s);
    } else {
      out.unknown_state_filters.push_back(name);
    }
  }
  const int64_t now = clock_.now_ms();
  for (const auto& [id, m] : txns_) {
    const TxnTransit& c = m->current();
    if (!producer_ids.empty() && !producer_ids.contains(c.producer_id)) continue;
    if (!states.empty() && !wanted.contains(c.state)) continue;
    if (min_duration_ms >= 0 && now - c.txn_start_ms <= min_duration_ms) continue;
    if (id_filter && !id_filter(id)) continue;
    out.states.push_back({id, c.producer_id, std::string(state_name(c.state))});
  }
  return out;
}

size_t TxnCoordinator::abort_timed_out_transactions() {
  const int64_t now = clock_.now_ms();
  std::vector<std::string> timed_out;
  for (const auto& [id, m] : txns_) {
    const TxnTransit& c = m->current();
    if (!m->has_pending() && c.state == TxnState::kOngoing && c.txn_start_ms + c.txn_timeout_ms < now) {
      timed_out.push_back(id);
    }
  }
  for (const auto& id : timed_out) {
    TxnMetadata& m = *txns_.at(id);
    const int16_t old_epoch = m.producer_epoch();
    const TxnTransit fence = m.prepare_fence_epoch();
    txn_log().info(
        "transactional id {}: transaction of producer id {} epoch {} passed its timeout of {} ms; "
        "aborting it at epoch {}",
        loggable_id(id), fence.producer_id, old_epoch, fence.txn_timeout_ms, fence.producer_epoch);
    end_internal(id, fence.producer_id, fence.producer_epoch, /*commit=*/false, /*from_client=*/false,
                 config_.transaction_version(), [id](TxnResult r) {
                   if (r.error != ErrorCode::kNone) {
                     txn_log().warn("transactional id {}: abort after timeout failed: error {}", loggable_id(id),
                                    static_cast<int>(r.error));
                   }
                 });
  }
  retry_pending_markers();
  return timed_out.size();
}

size_t TxnCoordinator::expire_transactional_ids() {
  const int64_t cutoff = clock_.now_ms() - config_.transactional_id_expiration_ms;
  std::vector<std::string> expired;
  for (const auto& [id, m] : txns_) {
    if (!m->has_pending() && is_expiration_allowed(m->state()) && m->current().txn_last_update_ms <= cutoff) {
      expired.push_back(id);
    }
  }
  for (const auto& id : expired) {
    TxnMetadata& m = *txns_.at(id);
    const TxnTransit dead = m.prepare_dead();
    write(m, dead, [id, dead](ErrorCode e) {
      if (e == ErrorCode::kNone) {
        txn_log().info("transactional id {}: expired (producer id {} epoch {})", loggable_id(id), dead.producer_id,
                       dead.producer_epoch);
      } else {
        txn_log().warn("transactional id {}: writing its expiration failed: error {}", loggable_id(id),
                       static_cast<int>(e));
      }
    });
  }
  return expired.size();
}

void TxnCoordinator::load(const std::vector<TxnLogRecord>& records) {
  std::map<std::string, TxnTransit> latest;
  for (const auto& r : records) {
    if (r.value) {
      latest[r.transactional_id] = *r.value;
    } else {
      latest.erase(r.transactional_id);
    }
  }
  txns_.clear();
  markers_in_flight_.clear();
  size_t in_progress = 0;
  for (auto& [id, t] : latest) {
    t.last_producer_epoch = kNoProducerEpoch;  // not stored, as in Kafka
    txns_.emplace(id, std::make_unique<TxnMetadata>(id, t));
    if (t.state == TxnState::kOngoing || t.state == TxnState::kPrepareCommit || t.state == TxnState::kPrepareAbort) {
      ++in_progress;
      txn_log().info("transactional id {}: loaded in state {} with producer id {} epoch {}", loggable_id(id),
                     state_name(t.state), t.producer_id, t.producer_epoch);
    }
  }
  txn_log().info("transaction coordinator loaded {} transactional ids from {} records ({} in progress)", txns_.size(),
                 records.size(), in_progress);
  retry_pending_markers();  // PrepareCommit/PrepareAbort: the decision is durable, finish it
}

}  // namespace skiff::txn
