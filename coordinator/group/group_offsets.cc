// GroupCoordinator: committed offsets — OffsetCommit, OffsetFetch,
// OffsetDelete and their expiry (Kafka's handleCommitOffsets,
// handleFetchOffsets, handleDeleteOffsets, cleanupGroupMetadata).
#include <algorithm>
#include <set>

#include "common/log_escape.h"
#include "coordinator/group/consumer_offset_checks.h"
#include "coordinator/group/group_coordinator.h"
#include "coordinator/runtime/coordinator_log.h"
#include "log/log.h"
#include "log/log_manager.h"
#include "protocol/consumer_protocol.h"

namespace skiff::group {
namespace {

// Whether a member of this group consumes `topic` (unknown metadata: assume so).
bool subscribed_to(const GroupMetadata& g, const std::string& topic) {
  if (g.streams) return g.streams->topology && streams::required_topics(*g.streams->topology).contains(topic);
  if (g.consumer) {
    for (const auto& [id, m] : g.consumer->members)
      if (std::binary_search(m.subscribed_names.begin(), m.subscribed_names.end(), topic)) return true;
    return false;
  }
  for (const auto& [id, m] : g.members()) {
    for (const auto& p : m.protocols) {
      if (g.protocol_name && p.name != *g.protocol_name) continue;
      auto topics = protocol::subscribed_topics(p.metadata);
      if (!topics || topics->count(topic)) return true;
      break;
    }
  }
  return false;
}

// The offsets whose metadata fits `max_bytes`; the others get
// OFFSET_METADATA_TOO_LARGE in `errors` (same order as `offsets`).
std::vector<std::pair<TopicPartition, OffsetAndMetadata>> within_metadata_limit(
    const std::vector<std::pair<TopicPartition, OffsetAndMetadata>>& offsets, int32_t max_bytes,
    std::vector<ErrorCode>& errors) {
  std::vector<std::pair<TopicPartition, OffsetAndMetadata>> valid;
  for (size_t i = 0; i < offsets.size(); ++i) {
    if (errors[i] != ErrorCode::kNone) continue;  // its data could not be made durable
    if (offsets[i].second.metadata.size() > static_cast<size_t>(max_bytes))
      errors[i] = ErrorCode::kOffsetMetadataTooLarge;
    else
      valid.push_back(offsets[i]);
  }
  return valid;
}

}  // namespace

// Before a commit is written (not only acknowledged: once written, another
// group's flush of the same __consumer_offsets partition can make it
// durable), each committed partition's records are made durable up to the
// committed offset (at most its end), so that a commit on disk never points
// past the durable end of its partition (issue 57; docs/durability.md).
// Group-committed per log (Log::flush_to), a no-op where the data is
// flushed already (flush.messages=1, or an earlier commit). A failed flush
// fails that partition's commit with KAFKA_STORAGE_ERROR. No lock held.
std::vector<ErrorCode> GroupCoordinator::flush_committed_data(
    const std::vector<std::pair<TopicPartition, OffsetAndMetadata>>& offsets) const {
  std::vector<ErrorCode> errors(offsets.size(), ErrorCode::kNone);
  for (size_t i = 0; i < offsets.size(); ++i) {
    const auto& [tp, o] = offsets[i];
    if (o.offset <= 0) continue;
    auto log = logs_.get_log(tp.topic, tp.partition);
    if (!log) continue;
    const int64_t upto = std::min(o.offset, log->log_end_offset().value);
    if (!log->flush_to(storage::Offset(upto))) errors[i] = ErrorCode::kKafkaStorageError;
  }
  return errors;
}

// OffsetCommit's checks of the group (Kafka's validateOffsetCommit). Caller
// holds g.mu.
ErrorCode GroupCoordinator::validate_commit(GroupMetadata& g, const OffsetCommitParams& p) const {
  if (g.is(GroupState::kDead)) return ErrorCode::kCoordinatorNotAvailable;
  if (g.share) return ErrorCode::kGroupIdNotFound;  // Kafka: "Group g is not a consumer group."
  if (g.streams) {                                  // generation_id is the member epoch
    std::vector<TopicPartition> tps;
    for (const auto& [tp, o] : p.offsets) tps.push_back(tp);
    return g.streams->check_commit(p.member_id, p.generation_id, false, p.api_version, tps);
  }
  if (g.consumer) {  // generation_id is the member epoch
    // A classic member of a consumer group (online migration): its generation
    // must be its member epoch, ILLEGAL_GENERATION otherwise, whatever the
    // request version (Kafka's validateMemberEpoch for classic members).
    const auto* m = g.consumer->get(p.member_id);
    if (m && m->uses_classic())
      return p.generation_id == m->assignment.member_epoch ? ErrorCode::kNone : ErrorCode::kIllegalGeneration;
    consumer::CommitIdentity who{p.member_id, p.group_instance_id, p.generation_id, false, p.api_version};
    return consumer::check_commit_offsets(*g.consumer, g.group_id(), who, p.offsets, p.topic_ids);
  }
  if (p.generation_id >= 0 || !p.member_id.empty() || p.group_instance_id) {
    if (auto err = validate_member(g, p.member_id, p.group_instance_id); err != ErrorCode::kNone) return err;
    if (p.generation_id != g.generation_id) return ErrorCode::kIllegalGeneration;
    // The member has its new generation but not its assignment yet.
    if (g.is(GroupState::kCompletingRebalance)) return ErrorCode::kRebalanceInProgress;
    return ErrorCode::kNone;
  }
  if (!g.is_empty_group()) return ErrorCode::kUnknownMemberId;  // only members commit for an active group
  return ErrorCode::kNone;
}

// Kafka's validateOffsetFetch of share, streams and consumer groups: the
// whole fetch's error (caller holds g.mu).
ErrorCode GroupCoordinator::modern_fetch_check(GroupMetadata& g, const std::optional<std::string>& member_id,
                                               int32_t member_epoch) const {
  if (g.share) return ErrorCode::kGroupIdNotFound;
  if (g.streams) return g.streams->check_fetch(member_id, member_epoch);
  if (g.consumer) {
    auto c = consumer::check_fetch(*g.consumer, g.group_id(), member_id, member_epoch);
    if (c.error != ErrorCode::kNone)
      coordinator::log().debug("group {}: offset fetch refused: {}", escaped(g.group_id()), c.message);
    return c.error;
  }
  return ErrorCode::kNone;
}

std::vector<ErrorCode> GroupCoordinator::commit_offsets(const OffsetCommitParams& p) {
  const size_t n = p.offsets.size();
  if (shutting_down_) return std::vector<ErrorCode>(n, ErrorCode::kNotCoordinator);
  if (p.group_id.empty()) return std::vector<ErrorCode>(n, ErrorCode::kInvalidGroupId);
  GroupPtr g = find(p.group_id);
  if (!g) {
    // Only a commit from outside group management may create a group.
    if (p.generation_id >= 0) return std::vector<ErrorCode>(n, ErrorCode::kIllegalGeneration);
    g = get_or_create(p.group_id);
  }
  std::vector<ErrorCode> errors = flush_committed_data(p.offsets);
  std::optional<FlushPoints> seq;
  {
    std::lock_guard lock(g->mu);
    if (auto err = validate_commit(*g, p); err != ErrorCode::kNone) return std::vector<ErrorCode>(n, err);
    if (auto* m = g->get(p.member_id)) schedule_session_expiry(*g, *m);  // a commit is a heartbeat too

    auto valid = within_metadata_limit(p.offsets, config_.offset_metadata_max_bytes, errors);
    if (valid.empty()) return errors;
    seq = write_commit(*g, valid);
  }
  // Acknowledged only once durable: fsync outside the group's lock.
  if (!seq || !store_->flush(*seq)) {
    for (auto& e : errors)
      if (e == ErrorCode::kNone) e = ErrorCode::kCoordinatorNotAvailable;
  }
  return errors;
}

// Writes plain committed offsets, then applies them; they supersede the
// pending transactional offsets of their partitions (the replay of the
// record does the same). Caller holds g.mu.
std::optional<FlushPoints> GroupCoordinator::write_commit(
    GroupMetadata& g, const std::vector<std::pair<TopicPartition, OffsetAndMetadata>>& valid) {
  auto seq = store_->write_offsets(g.group_id(), valid);
  if (seq) {
    std::vector<TopicPartition> tps;
    for (const auto& [tp, o] : valid) {
      g.offsets[tp] = o;
      tps.push_back(tp);
    }
    supersede(g, tps);
  }
  return seq;
}

OffsetFetchResult GroupCoordinator::fetch_offsets(const std::string& group_id,
                                                  const std::optional<std::vector<TopicPartition>>& partitions,
                                                  bool require_stable, const std::optional<std::string>& member_id,
                                                  int32_t member_epoch) {
  OffsetFetchResult r;
  if (shutting_down_) {
    r.error = ErrorCode::kNotCoordinator;
    return r;
  }
  auto g = find(group_id);
  std::unique_lock<std::mutex> lock;
  if (g) lock = std::unique_lock(g->mu);
  if (g) {
    r.error = modern_fetch_check(*g, member_id, member_epoch);
    if (r.error != ErrorCode::kNone) return r;
  }
  // Kafka: while a transaction holds pending offsets of a partition, a
  // require_stable fetch gets UNSTABLE_OFFSET_COMMIT (and offset -1) for it.
  auto unstable = [&](const TopicPartition& tp) { return require_stable && g && g->has_pending(tp); };
  if (partitions) {
    for (const auto& tp : *partitions) {
      FetchedOffset f{tp, std::nullopt};
      if (unstable(tp)) {
        f.error = ErrorCode::kUnstableOffsetCommit;
      } else if (g) {
        auto it = g->offsets.find(tp);
        if (it != g->offsets.end()) f.committed = it->second;
      }
      r.offsets.push_back(std::move(f));
    }
  } else if (g) {
    for (const auto& [tp, o] : g->offsets) {
      if (unstable(tp))
        r.offsets.push_back({tp, std::nullopt, ErrorCode::kUnstableOffsetCommit});
      else
        r.offsets.push_back({tp, o});
    }
  }
  return r;
}

OffsetDeleteResult GroupCoordinator::delete_offsets(const std::string& group_id,
                                                    const std::vector<TopicPartition>& partitions) {
  OffsetDeleteResult r;
  if (shutting_down_) {
    r.error = ErrorCode::kNotCoordinator;
    return r;
  }
  auto g = find(group_id);
  if (!g) {
    r.error = ErrorCode::kGroupIdNotFound;
    return r;
  }
  std::optional<FlushPoints> seq;
  {
    std::lock_guard lock(g->mu);
    if (g->is(GroupState::kDead) || g->is_share()) {  // Kafka's ShareGroup.validateOffsetDelete
      r.error = ErrorCode::kGroupIdNotFound;
      return r;
    }
    const bool empty = g->is_empty_group();
    if (!empty && !g->is_consumer() && !g->is_streams() && g->protocol_type != protocol::kConsumerProtocolType) {
      r.error = ErrorCode::kNonEmptyGroup;
      return r;
    }
    std::vector<TopicPartition> doomed;
    for (const auto& tp : partitions) {
      if (!empty && subscribed_to(*g, tp.topic)) {
        r.partitions.push_back(ErrorCode::kGroupSubscribedToTopic);
      } else {
        r.partitions.push_back(ErrorCode::kNone);
        // Kafka's tombstone also drops the partition's pending transactional offsets.
        bool pending = false;
        for (auto& [pid, offsets] : g->pending_offsets) pending |= offsets.erase(tp) > 0;
        if (g->offsets.erase(tp) || pending) doomed.push_back(tp);
      }
    }
    if (!doomed.empty()) seq = store_->delete_offsets(group_id, doomed);
  }
  if (seq) store_->flush(*seq);
  return r;
}

// Offsets of empty groups expire offsets.retention.ms after the group became
// empty (after their commit, for groups never managed by the coordinator);
// an explicit retention (OffsetCommit v2-4) wins.
int GroupCoordinator::expire_offsets(int64_t now) {
  const int64_t retention = config_.offsets_retention_ms;
  return remove_offsets(
      [&](const GroupMetadata& g, const TopicPartition&, const OffsetAndMetadata& o) {
        if (o.expire_timestamp >= 0) return now >= o.expire_timestamp;
        if (!g.is_empty_group() || retention < 0) return false;
        int64_t base = g.protocol_type ? g.state_timestamp() : o.commit_timestamp;
        return now - base >= retention;
      },
      now, /*durable=*/false, /*with_pending=*/false);
}

// Kafka's onPartitionsDeleted: a deleted topic takes its committed offsets
// with it, so a topic created again under the same name starts unconsumed.
// Share groups forget the share state of topics that no longer exist
// (Kafka's maybeCleanupShareGroupState, on the same event).
int GroupCoordinator::delete_offsets_where(const std::function<bool(const TopicPartition&)>& doomed) {
  const int removed = remove_offsets(
      [&](const GroupMetadata&, const TopicPartition& tp, const OffsetAndMetadata&) { return doomed(tp); }, now_ms(),
      /*durable=*/true, /*with_pending=*/true);
  forget_deleted_share_topics();
  return removed;
}

// Removes from the group (memory only) the partitions `doomed_offset` picks.
std::vector<TopicPartition> GroupCoordinator::take_doomed(GroupMetadata& g, const OffsetPredicate& doomed_offset,
                                                          bool with_pending) {
  std::set<TopicPartition> picked;
  for (const auto& [tp, o] : g.offsets)
    if (doomed_offset(g, tp, o) && (with_pending || !g.has_pending(tp))) picked.insert(tp);
  if (with_pending) {  // pending offsets of a partition with no committed offset
    const OffsetAndMetadata none;
    for (const auto& [pid, offsets] : g.pending_offsets)
      for (const auto& [tp, po] : offsets)
        if (doomed_offset(g, tp, none)) picked.insert(tp);
  }
  std::vector<TopicPartition> doomed(picked.begin(), picked.end());
  for (const auto& tp : doomed) {
    g.offsets.erase(tp);
    for (auto& [pid, offsets] : g.pending_offsets) offsets.erase(tp);
  }
  std::erase_if(g.pending_offsets, [](const auto& kv) { return kv.second.empty(); });
  return doomed;
}

// Removes the offsets `doomed` picks from every group; an empty group left
// with no offsets is removed. `durable`: fsynced before returning.
int GroupCoordinator::remove_offsets(const OffsetPredicate& doomed_offset, int64_t now, bool durable,
                                     bool with_pending) {
  std::vector<GroupPtr> all;
  {
    std::shared_lock lock(map_mu_);
    for (auto& [id, g] : groups_) all.push_back(g);
  }
  int removed = 0;
  FlushPoints last_seq;
  auto written = [&](const std::optional<FlushPoints>& seq) {
    if (seq) last_seq.merge(*seq);
  };
  for (auto& g : all) {
    std::lock_guard lock(g->mu);
    if (g->is(GroupState::kDead)) continue;
    auto doomed = take_doomed(*g, doomed_offset, with_pending);
    if (!doomed.empty()) written(store_->delete_offsets(g->group_id(), doomed));
    removed += static_cast<int>(doomed.size());
    // Kafka's ShareGroup.shouldExpire is false: an empty share group stays.
    if (g->is_empty_group() && !g->is_share() && g->offsets.empty() && g->pending_offsets.empty() && g->size() == 0 &&
        g->pending_members.empty()) {
      g->transition_to(GroupState::kDead, now);
      if (g->is_consumer()) written(store_->write_consumer(g->group_id(), consumer_group_tombstones(g->group_id())));
      if (g->is_streams())
        written(store_->write_streams(g->group_id(), streams_group_tombstones(g->group_id(), *g->streams)));
      written(store_->delete_group(g->group_id(), {}));
      forget(*g);
      coordinator::log().info("group {}: removed (empty, no committed offsets)", escaped(g->group_id()));
    }
  }
  if (durable) store_->flush(last_seq);
  return removed;
}

}  // namespace skiff::group
