// GroupCoordinator: transactional offsets (KIP-447) — TxnOffsetCommit keeps
// offsets pending per (group, producer id); the transaction coordinator's
// marker for the group's `__consumer_offsets` partition commits them (unless
// a newer commit of the partition was written meanwhile) or drops them.
// Kafka 4.4: OffsetMetadataManager.commitTransactionalOffset,
// replayEndTransactionMarker; the producer epoch rules of the partition's
// ProducerStateManager (an older epoch than the last one seen is refused).
#include "common/kafka_hash.h"
#include "common/log_escape.h"
#include "coordinator/group/consumer_offset_checks.h"
#include "coordinator/group/group_coordinator.h"
#include "coordinator/runtime/coordinator_log.h"

namespace skiff::group {

int32_t GroupCoordinator::offsets_partition_for(const std::string& group_id) const {
  return skiff::offsets_partition_for(group_id, config_.offsets_topic_num_partitions);
}

// ClassicGroup.validateOffsetCommit with isTransactional: a commit without
// member id / generation is accepted in any state (old clients send none).
ErrorCode GroupCoordinator::validate_txn_commit(GroupMetadata& g, const TxnOffsetCommitParams& p) const {
  if (g.is(GroupState::kDead)) return ErrorCode::kCoordinatorNotAvailable;
  if (g.share) return ErrorCode::kGroupIdNotFound;  // Kafka: "Group g is not a consumer group."
  if (g.streams) {
    std::vector<TopicPartition> tps;
    for (const auto& [tp, o] : p.offsets) tps.push_back(tp);
    auto err = g.streams->check_commit(p.member_id, p.generation_id, true, p.api_version, tps);
    return err == ErrorCode::kStaleMemberEpoch && p.api_version < 6 ? ErrorCode::kIllegalGeneration : err;
  }
  if (g.consumer) {  // Kafka: STALE_MEMBER_EPOCH is ILLEGAL_GENERATION before v6
    consumer::CommitIdentity who{p.member_id, p.group_instance_id, p.generation_id, true, p.api_version};
    auto err = consumer::check_commit_offsets(*g.consumer, g.group_id(), who, p.offsets, p.topic_ids);
    return err == ErrorCode::kStaleMemberEpoch && p.api_version < 6 ? ErrorCode::kIllegalGeneration : err;
  }
  if (p.generation_id < 0 && g.is(GroupState::kEmpty)) return ErrorCode::kNone;
  if (p.generation_id >= 0 || !p.member_id.empty() || p.group_instance_id) {
    if (auto err = validate_member(g, p.member_id, p.group_instance_id); err != ErrorCode::kNone) return err;
    if (p.generation_id != g.generation_id) return ErrorCode::kIllegalGeneration;
  }
  return ErrorCode::kNone;
}

std::vector<ErrorCode> GroupCoordinator::commit_txn_offsets(const TxnOffsetCommitParams& p) {
  const size_t n = p.offsets.size();
  auto all = [n](ErrorCode e) { return std::vector<ErrorCode>(n, e); };
  if (shutting_down_) return all(ErrorCode::kNotCoordinator);
  if (p.group_id.empty()) return all(ErrorCode::kInvalidGroupId);
  // The input records durable before the pending offsets are written (group_offsets.cc).
  std::vector<ErrorCode> errors = flush_committed_data(p.offsets);
  std::optional<FlushPoints> seq;
  {
    std::lock_guard txn_lock(txn_mu_);
    GroupPtr g = find(p.group_id);
    if (!g) {
      // Only a commit from outside group management may create a group.
      if (p.generation_id >= 0)
        return all(p.api_version >= 6 ? ErrorCode::kGroupIdNotFound : ErrorCode::kIllegalGeneration);
      g = get_or_create(p.group_id);
    }
    std::lock_guard lock(g->mu);
    if (auto err = validate_txn_commit(*g, p); err != ErrorCode::kNone) return all(err);
    const std::pair key{offsets_partition_for(p.group_id), p.producer_id};
    auto known = producer_epochs_.find(key);
    if (known != producer_epochs_.end() && p.producer_epoch < known->second) {
      coordinator::log().info("group {}: TxnOffsetCommit of producer {} at epoch {} refused: epoch {} was seen",
                              escaped(p.group_id), p.producer_id, p.producer_epoch, known->second);
      return all(ErrorCode::kInvalidProducerEpoch);
    }
    seq = write_pending_offsets(*g, p, errors);
    if (seq) producer_epochs_[key] = p.producer_epoch;
  }
  if (!seq || !store_->flush(*seq)) {
    for (auto& e : errors)
      if (e == ErrorCode::kNone) e = ErrorCode::kCoordinatorNotAvailable;
  }
  return errors;
}

// Writes the valid offsets of `p` as a transactional batch of the producer,
// then keeps them pending; the invalid ones get their error in `errors`.
// Caller holds txn_mu_ and g.mu.
std::optional<FlushPoints> GroupCoordinator::write_pending_offsets(GroupMetadata& g, const TxnOffsetCommitParams& p,
                                                                   std::vector<ErrorCode>& errors) {
  std::vector<std::pair<TopicPartition, OffsetAndMetadata>> valid;
  for (size_t i = 0; i < p.offsets.size(); ++i) {
    if (errors[i] != ErrorCode::kNone) continue;  // its data could not be made durable
    if (p.offsets[i].second.metadata.size() > static_cast<size_t>(config_.offset_metadata_max_bytes))
      errors[i] = ErrorCode::kOffsetMetadataTooLarge;
    else
      valid.push_back(p.offsets[i]);
  }
  if (valid.empty()) return std::nullopt;
  ErrorCode refused = ErrorCode::kCoordinatorNotAvailable;
  auto seq = store_->write_pending(p.group_id, p.producer_id, p.producer_epoch, valid, &refused);
  if (!seq) {
    // The partition's producer state fenced it (as Kafka's log would): that error, else retriable.
    if (refused != ErrorCode::kInvalidProducerEpoch) refused = ErrorCode::kCoordinatorNotAvailable;
    for (auto& e : errors)
      if (e == ErrorCode::kNone) e = refused;
    return std::nullopt;
  }
  auto& mine = g.pending_offsets[p.producer_id];
  for (auto& [tp, o] : valid) mine[tp] = PendingOffset{o, p.producer_epoch, next_pending_order_++, false};
  return seq;
}

// Appends the COMMIT/ABORT control batch to the offsets partition, then
// applies it to every group of that partition, all under txn_mu_ so the log
// and the memory see TxnOffsetCommits and markers in the same order.
void GroupCoordinator::on_marker(int64_t producer_id, int16_t producer_epoch, bool commit, int32_t offsets_partition,
                                 std::function<void(ErrorCode)> done) {
  if (shutting_down_) return done(ErrorCode::kNotCoordinator);
  std::optional<FlushPoints> written;
  ErrorCode refused = ErrorCode::kNone;
  {
    std::lock_guard txn_lock(txn_mu_);
    const std::pair key{offsets_partition, producer_id};
    auto known = producer_epochs_.find(key);
    if (known != producer_epochs_.end() && producer_epoch < known->second) {
      // The producer has written at a newer epoch since: this marker is from
      // a fenced epoch and must not end the newer transaction's offsets.
      coordinator::log().warn("__consumer_offsets-{}: {} marker of producer {} at epoch {} refused: epoch {} was seen",
                              offsets_partition, commit ? "COMMIT" : "ABORT", producer_id, producer_epoch,
                              known->second);
      refused = ErrorCode::kInvalidProducerEpoch;
    } else if (!(written = store_->write_marker(offsets_partition, producer_id, producer_epoch, commit, &refused))) {
      // Nothing applied: the pending offsets stay for the retried marker.
      if (refused == ErrorCode::kNone) refused = ErrorCode::kKafkaStorageError;
    } else {
      producer_epochs_[key] = producer_epoch;
      std::vector<GroupPtr> all;
      {
        std::shared_lock lock(map_mu_);
        for (auto& [id, g] : groups_)
          if (offsets_partition_for(id) == offsets_partition) all.push_back(g);
      }
      for (auto& g : all) {
        std::lock_guard lock(g->mu);
        end_txn_in_group(*g, producer_id, commit);
      }
    }
  }
  if (refused != ErrorCode::kNone) return done(refused);
  if (!store_->flush(*written)) return done(ErrorCode::kKafkaStorageError);
  done(ErrorCode::kNone);
}

void GroupCoordinator::end_txn_in_group(GroupMetadata& g, int64_t producer_id, bool commit) {
  auto mine = g.pending_offsets.find(producer_id);
  if (mine == g.pending_offsets.end() || g.is(GroupState::kDead)) return;
  size_t applied = 0;
  if (commit) {
    for (const auto& [tp, po] : mine->second) {
      if (po.superseded) continue;
      g.offsets[tp] = po.offset;
      ++applied;
      // Other producers' older pending offsets of this partition are now
      // older than the committed offset: their commit must not win.
      supersede(g, {tp}, po.order);
    }
  }
  g.pending_offsets.erase(mine);
  coordinator::log().debug("group {}: {} {} transactional offset(s) of producer {}", escaped(g.group_id()),
                           commit ? "committed" : "dropped", applied, producer_id);
}

void GroupCoordinator::supersede(GroupMetadata& g, const std::vector<TopicPartition>& tps, int64_t before_order) {
  for (auto& [pid, offsets] : g.pending_offsets) {
    for (const auto& tp : tps) {
      auto it = offsets.find(tp);
      if (it != offsets.end() && it->second.order < before_order) it->second.superseded = true;
    }
  }
}

}  // namespace skiff::group
