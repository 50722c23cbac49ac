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

// ---- DescribeShareGroupOffsets ----

void GroupCoordinator::describe_share_offsets(const std::string& group_id,
                                              const std::optional<std::vector<ShareOffsetsTopicRequest>>& topics,
                                              ShareOffsetsDescriptionCallback done) {
  ShareOffsetsDescription out;
  auto* port = share_state_.load();
  if (shutting_down_ || !port) {
    out.error = shutting_down_ ? ErrorCode::kNotCoordinator : ErrorCode::kCoordinatorNotAvailable;
    return done(std::move(out));
  }
  std::vector<SharePartitionId> ask;
  std::map<Uuid, std::string> names;
  if (topics) {
    for (const auto& t : *topics) {
      auto meta = topics_(t.topic);
      if (!meta) {  // Kafka: the topic with a zero id and start offset -1, no error
        auto& unknown = out.topics.emplace_back(ShareTopicOffsets{t.topic, Uuid{}, {}});
        for (int32_t p : t.partitions) unknown.partitions.push_back({p, -1, -1, -1, ErrorCode::kNone, std::nullopt});
        continue;
      }
      names[meta->id] = t.topic;
      for (int32_t p : t.partitions) ask.push_back({meta->id, p});
    }
  } else if (auto g = find(group_id)) {  // Kafka's initializedShareGroupPartitions
    std::lock_guard lock(g->mu);
    if (g->is_share() && g->share->state_partitions)
      for (const auto& [id, t] : g->share->state_partitions->initialized)
        if (auto info = logs_.topic_by_id(id)) {
          names[id] = info->name;
          for (int32_t p : t.partitions) ask.push_back({id, p});
        }
  }
  if (ask.empty()) return done(std::move(out));
  port->read_summary(
      group_id, std::move(ask),
      [this, out = std::move(out), names, done = std::move(done)](std::vector<ShareStateSummary> results) mutable {
        std::map<Uuid, ShareTopicOffsets> by_topic;
        for (const auto& s : results) {
          auto& t = by_topic[s.partition.topic_id];
          t.topic_id = s.partition.topic_id;
          t.topic = names.count(t.topic_id) ? names[t.topic_id] : std::string();
          SharePartitionOffset po;
          po.partition = s.partition.partition;
          const bool ok = s.error == ErrorCode::kNone;
          po.start_offset = ok ? s.start_offset : -1;
          po.leader_epoch = ok ? s.leader_epoch : 0;
          if (ok && s.start_offset != -1 && s.delivery_complete_count != -1) {
            const int64_t end = partition_end_offset(t.topic, po.partition);
            if (end < 0) {
              po.error = ErrorCode::kUnknownTopicOrPartition;
              po.message = kShareUnknownTopicMessage;
              po.start_offset = -1;
              po.leader_epoch = -1;
            } else {
              po.lag = end - s.start_offset - s.delivery_complete_count;
            }
          }
          t.partitions.push_back(std::move(po));
        }
        std::vector<ShareTopicOffsets> found;
        for (auto& [id, t] : by_topic) found.push_back(std::move(t));
        found.insert(found.end(), out.topics.begin(), out.topics.end());  // Kafka: unknown ones last
        out.topics = std::move(found);
        done(std::move(out));
      });
}

// ---- AlterShareGroupOffsets ----

void GroupCoordinator::alter_share_offsets(const std::string& group_id,
                                           const std::vector<AlterShareOffsetsTopic>& topics,
                                           AlterShareOffsetsCallback done) {
  AlterShareOffsetsResult out;
  auto* port = share_state_.load();
  if (shutting_down_ || !port) {
    out.error = shutting_down_ ? ErrorCode::kNotCoordinator : ErrorCode::kCoordinatorNotAvailable;
    return done(std::move(out));
  }
  auto g = get_or_create(group_id);  // Kafka creates the share group
  std::vector<ShareStateStart> starts;
  int32_t epoch = 0;
  std::optional<FlushPoints> written;
  {
    std::lock_guard lock(g->mu);
    if (g->is(GroupState::kDead) || (!g->is_share() && !g->is_blank())) {
      out.error = ErrorCode::kGroupIdNotFound;
      out.message = fmt::format("Group {} is not a share group.", group_id);
      return done(std::move(out));
    }
    if (!g->is_share()) g->share = std::make_unique<ShareGroup>();
    auto& sg = *g->share;
    if (!sg.empty()) {
      out.error = ErrorCode::kNonEmptyGroup;
      out.message = kShareNonEmptyMessage;
      return done(std::move(out));
    }
    const auto before = sg.image();
    auto& meta = sg.state_partitions ? *sg.state_partitions : sg.state_partitions.emplace();
    for (const auto& t : topics) {
      auto& tr = out.topics.emplace_back(AlterShareTopicResult{t.topic, Uuid{}, {}});
      auto info = topics_(t.topic);
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
    epoch = sg.group_epoch;
    written = persist_share(*g, before);
  }
  if (!written || !store_->flush(*written)) {
    out.error = ErrorCode::kCoordinatorNotAvailable;
    return done(std::move(out));
  }
  if (starts.empty()) return done(std::move(out));
  initialize_share_state(group_id, epoch, std::move(starts),
                         [out = std::move(out), done = std::move(done)](std::vector<ShareStateResult> results) mutable {
                           for (const auto& r : results) {
                             if (r.error == ErrorCode::kNone) continue;
                             for (auto& t : out.topics) {
                               if (t.topic_id != r.partition.topic_id) continue;
                               for (auto& p : t.partitions)
                                 if (p.partition == r.partition.partition && p.error == ErrorCode::kNone) {
                                   p.error = r.error;
                                   p.message = r.message.empty() ? std::nullopt : std::optional(r.message);
                                 }
                             }
                           }
                           done(std::move(out));
                         });
}

// ---- DeleteShareGroupOffsets ----

void GroupCoordinator::delete_share_offsets(const std::string& group_id, const std::vector<std::string>& topics,
                                            DeleteShareOffsetsCallback done) {
  DeleteShareOffsetsResult out;
  auto* port = share_state_.load();
  if (shutting_down_ || !port) {
    out.error = shutting_down_ ? ErrorCode::kNotCoordinator : ErrorCode::kCoordinatorNotAvailable;
    return done(std::move(out));
  }
  auto g = find(group_id);
  if (!g) {
    out.error = ErrorCode::kGroupIdNotFound;
    out.message = fmt::format("Group {} not found.", group_id);
    return done(std::move(out));
  }
  std::vector<SharePartitionId> doomed;
  std::map<Uuid, std::string> deleting;  // the topics being deleted now
  std::optional<FlushPoints> written;
  {
    std::lock_guard lock(g->mu);
    if (g->is(GroupState::kDead) || !g->is_share()) {
      out.error = ErrorCode::kGroupIdNotFound;
      out.message = g->is(GroupState::kDead) || g->is_blank() ? fmt::format("Group {} not found.", group_id)
                                                              : fmt::format("Group {} is not a share group.", group_id);
      return done(std::move(out));
    }
    auto& sg = *g->share;
    if (!sg.empty()) {
      out.error = ErrorCode::kNonEmptyGroup;
      out.message = kShareNonEmptyMessage;
      return done(std::move(out));
    }
    if (!sg.state_partitions) return done(std::move(out));  // Kafka: nothing, no topic in the answer
    const auto before = sg.image();
    auto& meta = *sg.state_partitions;
    for (const auto& name : topics) {
      auto info = topics_(name);
      if (!info) {
        out.topics.push_back({name, Uuid{}, ErrorCode::kUnknownTopicOrPartition, kShareUnknownTopicMessage});
        continue;
      }
      if (auto i = meta.initialized.find(info->id); i != meta.initialized.end()) {
        for (int32_t p : i->second.partitions) doomed.push_back({info->id, p});
        meta.initialized.erase(i);
      } else if (meta.deleting.contains(info->id)) {  // a delete to retry: every partition
        for (int32_t p = 0; p < info->partitions; ++p) doomed.push_back({info->id, p});
      } else {
        out.topics.push_back(
            {name, Uuid{}, ErrorCode::kUnknownTopicOrPartition, "There is no offset information to delete."});
        continue;
      }
      meta.deleting[info->id] = name;
      deleting[info->id] = name;
    }
    written = persist_share(*g, before);
  }
  if (!written || !store_->flush(*written)) {
    out.error = ErrorCode::kCoordinatorNotAvailable;
    return done(std::move(out));
  }
  if (doomed.empty()) return done(std::move(out));
  port->remove(
      group_id, std::move(doomed),
      [this, group_id, deleting, out = std::move(out),
       done = std::move(done)](std::vector<ShareStateResult> results) mutable {
        std::map<Uuid, const ShareStateResult*> failed;
        for (const auto& r : results)
          if (r.error != ErrorCode::kNone) failed.emplace(r.partition.topic_id, &r);
        std::optional<FlushPoints> written;
        if (auto g = find(group_id)) {  // Kafka's completeDeleteShareGroupOffsets
          std::lock_guard lock(g->mu);
          if (g->is_share() && g->share->state_partitions && !g->is(GroupState::kDead)) {
            const auto before = g->share->image();
            for (const auto& [id, name] : deleting)
              if (!failed.contains(id)) g->share->state_partitions->deleting.erase(id);
            written = persist_share(*g, before);
          }
        }
        if (written) store_->flush(*written);
        for (const auto& [id, name] : deleting) {
          auto f = failed.find(id);
          if (f == failed.end())
            out.topics.push_back({name, id, ErrorCode::kNone, std::nullopt});
          else
            out.topics.push_back({name, id, f->second->error,
                                  f->second->message.empty() ? std::nullopt : std::optional(f->second->message)});
        }
        done(std::move(out));
      });
}

}  // namespace skiff::group
