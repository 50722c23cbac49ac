// TxnCoordinator: the admin views (DescribeTransactions, ListTransactions),
// the timers (timed-out aborts, transactional id expiration) and replay of
// __transaction_state at startup. See txn_coordinator.h.
#include "api/txn/txn_coordinator.h"
#include "api/txn/txn_log.h"

namespace skiff::api::txn {

namespace {

// java.lang.String.hashCode over the UTF-16 code units of a UTF-8 string
// (a malformed byte counts as U+FFFD, as Java's decoder substitutes it).
int32_t java_string_hash(std::string_view s) {
  uint32_t h = 0;
  auto add = [&h](uint32_t unit) { h = 31 * h + unit; };
  for (size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    const size_t len = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xe ? 3 : (b >> 3) == 0x1e ? 4 : 0;
    bool ok = len != 0 && i + len <= s.size();
    uint32_t cp = len == 1 ? b : len == 2 ? (b & 0x1f) : len == 3 ? (b & 0x0f) : (b & 0x07);
    for (size_t k = 1; ok && k < len; ++k) {
      const auto c = static_cast<unsigned char>(s[i + k]);
      ok = (c & 0xc0) == 0x80;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (!ok) {
      add(0xfffd);
      ++i;
      continue;
    }
    if (cp >= 0x10000) {
      add(0xd800 + ((cp - 0x10000) >> 10));
      add(0xdc00 + ((cp - 0x10000) & 0x3ff));
    } else {
      add(cp);
    }
    i += len;
  }
  return static_cast<int32_t>(h);
}

}  // namespace

TopicPartition TxnCoordinator::offsets_partition_for(const std::string& group_id) const {
  const int32_t h = java_string_hash(group_id);
  const int32_t abs = h == INT32_MIN ? 0 : (h < 0 ? -h : h);  // Kafka's Utils.abs
  return {"__consumer_offsets", abs % config_.offsets_topic_partitions};
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
                                int64_t min_duration_ms) const {
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
    txn_log().info("transactional id {}: transaction of producer id {} epoch {} passed its timeout of {} ms; "
                   "aborting it at epoch {}",
                   loggable_id(id), fence.producer_id, old_epoch, fence.txn_timeout_ms, fence.producer_epoch);
    end_internal(id, fence.producer_id, fence.producer_epoch, /*commit=*/false, /*from_client=*/false,
                 config_.server_transaction_version, [id](TxnResult r) {
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
  txn_log().info("transaction coordinator loaded {} transactional ids from {} records ({} in progress)",
                 txns_.size(), records.size(), in_progress);
  retry_pending_markers();  // PrepareCommit/PrepareAbort: the decision is durable, finish it
}

}  // namespace skiff::api::txn
