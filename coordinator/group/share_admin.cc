// GroupCoordinator: the share-group offsets admin APIs (KIP-932;
// GroupCoordinatorService / GroupMetadataManager of Kafka 4.4):
// DescribeShareGroupOffsets (the port's read_summary, with the lag from the
// partition's end offset), AlterShareGroupOffsets (an empty share group's
// partitions initialized again at the given start offsets) and
// DeleteShareGroupOffsets (an empty share group's partition state deleted);
// the share configs in effect for a group; the share part of DeleteGroups.
// The port is called outside every group lock; its answers come back on
// its thread and take the group's lock like any request.
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <mutex>

#include "common/log_escape.h"
#include "common/wall_clock.h"
#include "coordinator/group/group_coordinator.h"
#include "coordinator/runtime/coordinator_log.h"

namespace skiff::group {
namespace {

constexpr const char* kShareUnknownTopicMessage = "This server does not host this topic-partition.";
constexpr const char* kShareNonEmptyMessage = "The group is not empty.";

}  // namespace

std::vector<GroupCoordinator::GroupPtr> GroupCoordinator::all_groups() const {
  std::shared_lock lock(map_mu_);
  std::vector<GroupPtr> all;
  all.reserve(groups_.size());
  for (const auto& [id, g] : groups_) all.push_back(g);
  return all;
}

int64_t GroupCoordinator::partition_end_offset(const std::string& topic, int32_t partition) const {
  auto log = logs_.get_log(topic, partition);
  return log ? log->log_end_offset().value : -1;
}

std::vector<SharePartitionId> GroupCoordinator::share_state_partitions(const ShareGroup& sg) const {
  std::vector<SharePartitionId> out;
  if (!sg.state_partitions) return out;
  std::set<SharePartitionId> all;
  for (const auto* m : {&sg.state_partitions->initialized, &sg.state_partitions->initializing})
    for (const auto& [id, t] : *m)
      for (int32_t p : t.partitions) all.insert({id, p});
  for (const auto& [id, name] : sg.state_partitions->deleting)  // a delete to retry: every partition
    if (auto t = logs_.topic_by_id(id))
      for (int32_t p = 0; p < t->partitions; ++p) all.insert({id, p});
  return {all.begin(), all.end()};
}

int GroupCoordinator::forget_deleted_share_topics() {
  int changed = 0;
  FlushPoints last;
  for (auto& g : all_groups()) {
    std::lock_guard lock(g->mu);
    if (!g->is_share() || g->is(GroupState::kDead) || !g->share->state_partitions) continue;
    const auto before = g->share->image();
    auto& meta = *g->share->state_partitions;
    auto gone = [this](const auto& kv) { return !logs_.topic_by_id(kv.first); };
    std::erase_if(meta.initializing, gone);
    std::erase_if(meta.initialized, gone);
    std::erase_if(meta.deleting, gone);
    if (meta == *before.state_partitions) continue;
    ++changed;
    if (auto seq = persist_share(*g, before)) last.merge(*seq);
  }
  store_->flush(last);
  return changed;
}

// ---- the admin APIs' common checks ----

ErrorCode GroupCoordinator::share_admin_error(const ShareStateInitializer* port) const {
  if (!shutting_down_ && port) return ErrorCode::kNone;
  return shutting_down_ ? ErrorCode::kNotCoordinator : ErrorCode::kCoordinatorNotAvailable;
}

// ---- DescribeShareGroupOffsets ----

namespace {

// The partitions to ask the port for, and their topics' names.
struct ShareSummaryAsk {
  std::vector<SharePartitionId> partitions;
  std::map<Uuid, std::string> names;
};

// The partitions a DescribeShareGroupOffsets names; an unknown topic goes in
// `out` with a zero id and start offset -1, no error (Kafka).
ShareSummaryAsk requested_share_partitions(const TopicResolver& resolve,
                                           const std::vector<ShareOffsetsTopicRequest>& topics,
                                           ShareOffsetsDescription& out) {
  ShareSummaryAsk ask;
  for (const auto& t : topics) {
    auto meta = resolve(t.topic);
    if (!meta) {
      auto& unknown = out.topics.emplace_back(ShareTopicOffsets{t.topic, Uuid{}, {}});
      for (int32_t p : t.partitions) unknown.partitions.push_back({p, -1, -1, -1, ErrorCode::kNone, std::nullopt});
      continue;
    }
    ask.names[meta->id] = t.topic;
    for (int32_t p : t.partitions) ask.partitions.push_back({meta->id, p});
  }
  return ask;
}

// Kafka's initializedShareGroupPartitions: those of topics that still
// exist. The caller holds g.mu.
ShareSummaryAsk initialized_share_partitions(const GroupMetadata& g, const storage::LogManager& logs) {
  ShareSummaryAsk ask;
  if (!g.is_share() || !g.share->state_partitions) return ask;
  for (const auto& [id, t] : g.share->state_partitions->initialized)
    if (auto info = logs.topic_by_id(id)) {
      ask.names[id] = info->name;
      for (int32_t p : t.partitions) ask.partitions.push_back({id, p});
    }
  return ask;
}

}  // namespace

SharePartitionOffset GroupCoordinator::share_partition_offset(const ShareStateSummary& s,
                                                              const std::string& topic) const {
  SharePartitionOffset po;
  po.partition = s.partition.partition;
  const bool ok = s.error == ErrorCode::kNone;
  po.start_offset = ok ? s.start_offset : -1;
  po.leader_epoch = ok ? s.leader_epoch : 0;
  if (!ok || s.start_offset == -1 || s.delivery_complete_count == -1) return po;
  const int64_t end = partition_end_offset(topic, po.partition);
  if (end < 0) {
    po.error = ErrorCode::kUnknownTopicOrPartition;
    po.message = kShareUnknownTopicMessage;
    po.start_offset = -1;
    po.leader_epoch = -1;
  } else {
    po.lag = end - s.start_offset - s.delivery_complete_count;
  }
  return po;
}

std::vector<ShareTopicOffsets> GroupCoordinator::share_topic_offsets(const std::vector<ShareStateSummary>& results,
                                                                     const std::map<Uuid, std::string>& names) const {
  std::map<Uuid, ShareTopicOffsets> by_topic;
  for (const auto& s : results) {
    auto& t = by_topic[s.partition.topic_id];
    t.topic_id = s.partition.topic_id;
    auto name = names.find(t.topic_id);
    t.topic = name != names.end() ? name->second : std::string();
    t.partitions.push_back(share_partition_offset(s, t.topic));
  }
  std::vector<ShareTopicOffsets> found;
  found.reserve(by_topic.size());
  for (auto& [id, t] : by_topic) found.push_back(std::move(t));
  return found;
}

void GroupCoordinator::describe_share_offsets(const std::string& group_id,
                                              const std::optional<std::vector<ShareOffsetsTopicRequest>>& topics,
                                              ShareOffsetsDescriptionCallback done) {
  ShareOffsetsDescription out;
  auto* port = share_state_.load();
  if (auto err = share_admin_error(port); err != ErrorCode::kNone) {
    out.error = err;
    return done(std::move(out));
  }
  ShareSummaryAsk ask;
  if (topics) {
    ask = requested_share_partitions(topics_, *topics, out);
  } else if (auto g = find(group_id)) {
    std::lock_guard lock(g->mu);
    ask = initialized_share_partitions(*g, logs_);
  }
  if (ask.partitions.empty()) return done(std::move(out));
  port->read_summary(group_id, std::move(ask.partitions),
                     [this, out = std::move(out), names = std::move(ask.names),
                      done = std::move(done)](const std::vector<ShareStateSummary>& results) mutable {
                       auto found = share_topic_offsets(results, names);
                       found.insert(found.end(), out.topics.begin(), out.topics.end());  // Kafka: unknown ones last
                       out.topics = std::move(found);
                       done(std::move(out));
                     });
}

// ---- AlterShareGroupOffsets ----

namespace {

// AlterShareGroupOffsets' group: a share group (a blank one made so, as
// Kafka creates it) with no member; else null with the error in `out`.
// The caller holds g.mu.
ShareGroup* share_group_to_alter(GroupMetadata& g, const std::string& group_id, AlterShareOffsetsResult& out) {
  if (g.is(GroupState::kDead) || (!g.is_share() && !g.is_blank())) {
    out.error = ErrorCode::kGroupIdNotFound;
    out.message = fmt::format("Group {} is not a share group.", group_id);
    return nullptr;
  }
  if (!g.is_share()) g.share = std::make_unique<ShareGroup>();
  if (!g.share->empty()) {
    out.error = ErrorCode::kNonEmptyGroup;
    out.message = kShareNonEmptyMessage;
    return nullptr;
  }
  return g.share.get();
}

// One topic of an AlterShareGroupOffsets: its existing partitions become
// `initializing` (no longer being deleted), their start offsets in `starts`.
void alter_share_topic(const TopicResolver& resolve, const AlterShareOffsetsTopic& t, ShareStatePartitions& meta,
                       AlterShareOffsetsResult& out, std::vector<ShareStateStart>& starts) {
  auto& tr = out.topics.emplace_back(AlterShareTopicResult{t.topic, Uuid{}, {}});
  auto info = resolve(t.topic);
  if (info) tr.topic_id = info->id;
  for (const auto& [p, offset] : t.partitions) {
    if (!info || p < 0 || p >= info->partitions) {
      tr.partitions.push_back({p, ErrorCode::kUnknownTopicOrPartition, kShareUnknownTopicMessage});
      continue;
    }
    tr.partitions.push_back({p, ErrorCode::kNone, std::nullopt});
    starts.push_back({{info->id, p}, offset});
    auto& init = meta.initializing[info->id];
    init.name = t.topic;
    init.partitions.insert(p);
    init.timestamp_ms = wall_clock_ms();
    meta.deleting.erase(info->id);
  }
}

// The port's answer: each partition it failed to initialize takes its error.
void apply_share_init_errors(const std::vector<ShareStateResult>& results, std::vector<AlterShareTopicResult>& topics) {
  for (const auto& r : results) {
    if (r.error == ErrorCode::kNone) continue;
    for (auto& t : topics) {
      if (t.topic_id != r.partition.topic_id) continue;
      for (auto& p : t.partitions)
        if (p.partition == r.partition.partition && p.error == ErrorCode::kNone) {
          p.error = r.error;
          p.message = r.message.empty() ? std::nullopt : std::optional(r.message);
        }
    }
  }
}

}  // namespace

void GroupCoordinator::alter_share_offsets(const std::string& group_id,
                                           const std::vector<AlterShareOffsetsTopic>& topics,
                                           AlterShareOffsetsCallback done) {
  AlterShareOffsetsResult out;
  if (auto err = share_admin_error(share_state_.load()); err != ErrorCode::kNone) {
    out.error = err;
    return done(std::move(out));
  }
  auto g = get_or_create(group_id);  // Kafka creates the share group
  std::vector<ShareStateStart> starts;
  int32_t epoch = 0;
  std::optional<FlushPoints> written;
  {
    std::lock_guard lock(g->mu);
    auto* sg = share_group_to_alter(*g, group_id, out);
    if (!sg) return done(std::move(out));
    const auto before = sg->image();
    auto& meta = sg->state_partitions ? *sg->state_partitions : sg->state_partitions.emplace();
    for (const auto& t : topics) alter_share_topic(topics_, t, meta, out, starts);
    epoch = sg->group_epoch;
    written = persist_share(*g, before);
  }
  if (!written || !store_->flush(*written)) {
    out.error = ErrorCode::kCoordinatorNotAvailable;
    return done(std::move(out));
  }
  if (starts.empty()) return done(std::move(out));
  initialize_share_state(
      group_id, epoch, std::move(starts),
      [out = std::move(out), done = std::move(done)](const std::vector<ShareStateResult>& results) mutable {
        apply_share_init_errors(results, out.topics);
        done(std::move(out));
      });
}

// ---- DeleteShareGroupOffsets ----

namespace {

// DeleteShareGroupOffsets' group: a share group with no member; else false
// with the error in `out`. The caller holds g.mu.
bool may_delete_share_offsets(const GroupMetadata& g, const std::string& group_id, DeleteShareOffsetsResult& out) {
  if (g.is(GroupState::kDead) || !g.is_share()) {
    out.error = ErrorCode::kGroupIdNotFound;
    out.message = g.is(GroupState::kDead) || g.is_blank() ? fmt::format("Group {} not found.", group_id)
                                                          : fmt::format("Group {} is not a share group.", group_id);
    return false;
  }
  if (!g.share->empty()) {
    out.error = ErrorCode::kNonEmptyGroup;
    out.message = kShareNonEmptyMessage;
    return false;
  }
  return true;
}

// The share-partition state a DeleteShareGroupOffsets deletes.
struct ShareStateDeletion {
  std::vector<SharePartitionId> doomed;
  std::map<Uuid, std::string> deleting;  // the topics being deleted now
};

// One topic of a DeleteShareGroupOffsets: its initialized partitions (every
// partition, for a delete to retry) doomed and the topic marked `deleting`;
// a topic with no state answered with its error in `out`.
void delete_share_topic(const TopicResolver& resolve, const std::string& name, ShareStatePartitions& meta,
                        DeleteShareOffsetsResult& out, ShareStateDeletion& del) {
  auto info = resolve(name);
  if (!info) {
    out.topics.push_back({name, Uuid{}, ErrorCode::kUnknownTopicOrPartition, kShareUnknownTopicMessage});
    return;
  }
  if (auto i = meta.initialized.find(info->id); i != meta.initialized.end()) {
    for (int32_t p : i->second.partitions) del.doomed.push_back({info->id, p});
    meta.initialized.erase(i);
  } else if (meta.deleting.contains(info->id)) {  // a delete to retry: every partition
    for (int32_t p = 0; p < info->partitions; ++p) del.doomed.push_back({info->id, p});
  } else {
    out.topics.push_back(
        {name, Uuid{}, ErrorCode::kUnknownTopicOrPartition, "There is no offset information to delete."});
    return;
  }
  meta.deleting[info->id] = name;
  del.deleting[info->id] = name;
}

using FailedShareTopics = std::map<Uuid, const ShareStateResult*>;

// The port's failures by topic (the first failed partition of each).
FailedShareTopics failed_share_topics(const std::vector<ShareStateResult>& results) {
  FailedShareTopics failed;
  for (const auto& r : results)
    if (r.error != ErrorCode::kNone) failed.emplace(r.partition.topic_id, &r);
  return failed;
}

// Each topic deleted, with the port's error when it failed.
void add_deleted_share_topics(const std::map<Uuid, std::string>& deleting, const FailedShareTopics& failed,
                              DeleteShareOffsetsResult& out) {
  for (const auto& [id, name] : deleting) {
    auto f = failed.find(id);
    if (f == failed.end())
      out.topics.push_back({name, id, ErrorCode::kNone, std::nullopt});
    else
      out.topics.push_back(
          {name, id, f->second->error, f->second->message.empty() ? std::nullopt : std::optional(f->second->message)});
  }
}

}  // namespace

void GroupCoordinator::complete_share_offsets_delete(const std::string& group_id,
                                                     const std::map<Uuid, std::string>& deleting,
                                                     const std::map<Uuid, const ShareStateResult*>& failed) {
  std::optional<FlushPoints> written;
  if (auto g = find(group_id)) {
    std::lock_guard lock(g->mu);
    if (g->is_share() && g->share->state_partitions && !g->is(GroupState::kDead)) {
      const auto before = g->share->image();
      for (const auto& [id, name] : deleting)
        if (!failed.contains(id)) g->share->state_partitions->deleting.erase(id);
      written = persist_share(*g, before);
    }
  }
  if (written) store_->flush(*written);
}

void GroupCoordinator::delete_share_offsets(const std::string& group_id, const std::vector<std::string>& topics,
                                            DeleteShareOffsetsCallback done) {
  DeleteShareOffsetsResult out;
  auto* port = share_state_.load();
  if (auto err = share_admin_error(port); err != ErrorCode::kNone) {
    out.error = err;
    return done(std::move(out));
  }
  auto g = find(group_id);
  if (!g) {
    out.error = ErrorCode::kGroupIdNotFound;
    out.message = fmt::format("Group {} not found.", group_id);
    return done(std::move(out));
  }
  ShareStateDeletion del;
  std::optional<FlushPoints> written;
  {
    std::lock_guard lock(g->mu);
    if (!may_delete_share_offsets(*g, group_id, out)) return done(std::move(out));
    auto& sg = *g->share;
    if (!sg.state_partitions) return done(std::move(out));  // Kafka: nothing, no topic in the answer
    const auto before = sg.image();
    for (const auto& name : topics) delete_share_topic(topics_, name, *sg.state_partitions, out, del);
    written = persist_share(*g, before);
  }
  if (!written || !store_->flush(*written)) {
    out.error = ErrorCode::kCoordinatorNotAvailable;
    return done(std::move(out));
  }
  if (del.doomed.empty()) return done(std::move(out));
  port->remove(group_id, std::move(del.doomed),
               [this, group_id, deleting = std::move(del.deleting), out = std::move(out),
                done = std::move(done)](const std::vector<ShareStateResult>& results) mutable {
                 const auto failed = failed_share_topics(results);
                 complete_share_offsets_delete(group_id, deleting, failed);  // Kafka's completeDeleteShareGroupOffsets
                 add_deleted_share_topics(deleting, failed, out);
                 done(std::move(out));
               });
}

}  // namespace skiff::group
