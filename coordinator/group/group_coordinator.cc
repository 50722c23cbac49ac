// GroupCoordinator: construction, loading, the map of groups, shutdown and
// the timers. The protocol flows are in group_join.cc, group_membership.cc,
// group_offsets.cc and group_admin.cc.
#include "coordinator/group/group_coordinator.h"

#include <fmt/format.h>

#include <chrono>
#include <random>

#include "common/log_escape.h"
#include "common/wall_clock.h"
#include "coordinator/runtime/coordinator_log.h"

namespace skiff::group {

GroupCoordinator::GroupCoordinator(const GroupConfig& config, storage::LogManager& logs)
    : config_(config),
      topics_([&logs](const std::string& name) -> std::optional<consumer::TopicMetadata> {
        auto t = logs.topic(name);
        if (!t) return std::nullopt;
        return consumer::TopicMetadata{t->topic_id, name, t->partitions};
      }),
      group_configs_(std::make_unique<GroupDynamicConfigs>(config.group_configs)),
      logs_(logs) {
  std::random_device rd;
  id_state_[0] = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  id_state_[1] = (static_cast<uint64_t>(rd()) << 32) ^ rd() ^ 0x9e3779b97f4a7c15ULL;
  auto started = std::chrono::steady_clock::now();
  store_ = std::make_unique<OffsetsTopic>(
      logs, OffsetsTopicConfig{config.offsets_topic_num_partitions, config.offsets_topic_segment_bytes});
  std::map<std::string, LoadedGroup> loaded;
  next_pending_order_ = store_->load(loaded) + 1;
  load(loaded);
  auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  coordinator::log().info("group coordinator: loaded {} group(s) from __consumer_offsets in {:.1f} ms", groups_.size(),
                          ms);
  schedule_retention();
}

void GroupCoordinator::load(std::map<std::string, LoadedGroup>& loaded) {
  size_t offsets = 0, pending = 0;
  for (auto& [id, lg] : loaded) {
    for (auto& [pid, tps] : lg.pending) {
      auto& epoch = producer_epochs_[{offsets_partition_for(id), pid}];
      for (auto& [tp, po] : tps) {
        epoch = std::max(epoch, po.producer_epoch);
        ++pending;
      }
    }
    auto g = std::make_shared<GroupMetadata>(id, lg.group ? lg.group->state_timestamp : now_ms());
    if (lg.group) {
      g->generation_id = lg.group->generation;
      if (!lg.group->protocol_type.empty()) g->protocol_type = lg.group->protocol_type;
    }
    if (lg.consumer) load_consumer_group(*g, *lg.consumer);
    if (lg.share && !lg.consumer) load_share_group(*g, *lg.share);
    if (lg.streams && !lg.consumer && !lg.share) {
      load_streams_group(*g, *lg.streams);
      g->protocol_type.reset();
    }
    g->offsets = std::move(lg.offsets);
    g->pending_offsets = std::move(lg.pending);
    offsets += g->offsets.size();
    groups_.emplace(id, std::move(g));
  }
  coordinator::log().info("group coordinator: {} committed and {} pending transactional offset(s)", offsets, pending);
}

// A consumer group as its records left it: members with their current
// assignment (and so the partition owners), targets, epochs; each member's
// session starts again now, as Kafka's coordinator does when it loads.
void GroupCoordinator::load_consumer_group(GroupMetadata& g, LoadedConsumerGroup& loaded) {
  auto cg = std::make_unique<ConsumerGroup>();
  cg->group_epoch = loaded.epoch;
  cg->assignment_epoch = loaded.assignment_epoch;
  cg->target = std::move(loaded.targets);
  cg->members = std::move(loaded.members);
  cg->regexes = std::move(loaded.regexes);  // stale: resolved again at the first heartbeat
  for (auto& [id, m] : cg->members) {
    m.member_id = id;
    if (m.instance_id) cg->static_members[*m.instance_id] = id;
    if (!cg->owners.update({}, m.assignment))
      coordinator::log().warn("group {}: member {} loaded with a partition another member owns", escaped(g.group_id()),
                              escaped(id));
  }
  // The subscribed topics as the broker has them now (classic members of the
  // group never heartbeat to fill them), then the record's hash: the first
  // heartbeat bumps the epoch only if a topic changed since it was written.
  cg->refresh_subscribed_topics(topics_);
  cg->metadata_hash = loaded.metadata_hash;
  g.consumer = std::move(cg);
  for (auto& [id, m] : g.consumer->members) schedule_consumer_session(g, m);
}

bool GroupCoordinator::ensure_offsets_topic() {
  try {
    store_->ensure_created();
    return true;
  } catch (const std::exception& e) {
    coordinator::log().error("group coordinator: {}", escaped(e.what()));
    return false;
  }
}

GroupCoordinator::~GroupCoordinator() { shutdown(); }

void GroupCoordinator::shutdown() {
  if (shutting_down_.exchange(true)) return;
  timers_.stop();
  std::vector<GroupPtr> all;
  {
    std::shared_lock lock(map_mu_);
    for (auto& [id, g] : groups_) all.push_back(g);
  }
  for (auto& g : all) {
    std::lock_guard lock(g->mu);
    for (auto& [id, m] : g->members()) m.answer_waiting(ErrorCode::kNotCoordinator);
  }
}

size_t GroupCoordinator::group_count() const {
  std::shared_lock lock(map_mu_);
  return groups_.size();
}

GroupCoordinator::GroupPtr GroupCoordinator::find(const std::string& group_id) const {
  std::shared_lock lock(map_mu_);
  auto it = groups_.find(group_id);
  return it == groups_.end() ? nullptr : it->second;
}

GroupCoordinator::GroupPtr GroupCoordinator::get_or_create(const std::string& group_id, bool* created) {
  if (auto g = find(group_id)) return g;
  std::unique_lock lock(map_mu_);
  auto [it, inserted] = groups_.try_emplace(group_id, nullptr);
  if (inserted) it->second = std::make_shared<GroupMetadata>(group_id, now_ms());
  if (created) *created = inserted;
  return it->second;
}

void GroupCoordinator::forget(GroupMetadata& g) {
  std::unique_lock lock(map_mu_);
  auto it = groups_.find(g.group_id());
  if (it != groups_.end() && it->second.get() == &g) groups_.erase(it);
}

// The group's GroupMetadataValue, as Kafka writes it (members with the
// selected protocol's metadata and their assignment). Not waited for: the
// group record only matters for a restart (generation, protocol type).
void GroupCoordinator::persist(GroupMetadata& g) {
  GroupRecord r{.group_id = g.group_id(),
                .protocol_type = g.protocol_type.value_or(""),
                .generation = g.generation_id,
                .protocol = g.protocol_name,
                .leader = std::nullopt,
                .state_timestamp = g.state_timestamp(),
                .members = {}};
  if (!g.leader_id().empty()) r.leader = g.leader_id();
  for (const auto& [id, m] : g.members()) {
    const Bytes* sub = g.protocol_name ? m.metadata_for(*g.protocol_name) : nullptr;
    r.members.push_back({id, m.group_instance_id, m.client_id, m.client_host, m.rebalance_timeout_ms,
                         m.session_timeout_ms, sub ? *sub : Bytes{}, m.assignment});
  }
  store_->write_group(r);
}

int64_t GroupCoordinator::now_ms() { return wall_clock_ms(); }

// A random (version 4) UUID after the prefix, as Kafka's member ids.
std::string GroupCoordinator::new_member_id(const std::string& prefix) {
  uint64_t a, b;
  {
    std::lock_guard lock(id_mu_);
    auto next = [this] {  // xorshift128+
      uint64_t s1 = id_state_[0];
      const uint64_t s0 = id_state_[1];
      id_state_[0] = s0;
      s1 ^= s1 << 23;
      id_state_[1] = s1 ^ s0 ^ (s1 >> 17) ^ (s0 >> 26);
      return id_state_[1] + s0;
    };
    a = next();
    b = next();
  }
  a = (a & 0xffffffffffff0fffULL) | 0x4000ULL;
  b = (b & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;
  return fmt::format("{}-{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", prefix, a >> 32, (a >> 16) & 0xffff, a & 0xffff, b >> 48,
                     b & 0xffffffffffffULL);
}

// ---- timers ----

void GroupCoordinator::schedule_session_expiry(GroupMetadata& g, MemberMetadata& m) {
  m.heartbeat_deadline = coordinator::TimerQueue::Clock::now() + std::chrono::milliseconds(m.session_timeout_ms);
  if (m.expiry_timer_armed) return;  // the armed timer will see the new deadline
  m.expiry_timer_armed = true;
  timers_.schedule(m.heartbeat_deadline,
                   [this, weak = g.weak_from_this(), id = m.member_id] { on_session_check(weak, id); });
}

void GroupCoordinator::on_session_check(const std::weak_ptr<GroupMetadata>& weak, const std::string& member_id) {
  auto g = weak.lock();
  if (!g) return;
  std::lock_guard lock(g->mu);
  auto* m = g->get(member_id);
  if (!m) return;
  m->expiry_timer_armed = false;
  auto now = coordinator::TimerQueue::Clock::now();
  if (m->is_awaiting_join() || m->is_awaiting_sync()) {
    schedule_session_expiry(*g, *m);  // waiting requests are bounded by the rebalance timeout instead
  } else if (now >= m->heartbeat_deadline) {
    coordinator::log().info("group {}: member {} session expired", escaped(g->group_id()), escaped(member_id));
    remove_member_and_update_group(*g, member_id, "session timeout");
  } else {
    m->expiry_timer_armed = true;
    timers_.schedule(m->heartbeat_deadline, [this, weak, member_id] { on_session_check(weak, member_id); });
  }
}

void GroupCoordinator::schedule_pending_expiry(GroupMetadata& g, const std::string& member_id,
                                               int32_t session_timeout_ms) {
  auto deadline = coordinator::TimerQueue::Clock::now() + std::chrono::milliseconds(session_timeout_ms);
  g.pending_members[member_id] = deadline;
  timers_.schedule(deadline, [this, weak = g.weak_from_this(), member_id] { on_pending_check(weak, member_id); });
}

void GroupCoordinator::on_pending_check(const std::weak_ptr<GroupMetadata>& weak, const std::string& member_id) {
  auto g = weak.lock();
  if (!g) return;
  std::lock_guard lock(g->mu);
  auto it = g->pending_members.find(member_id);
  if (it == g->pending_members.end() || it->second > coordinator::TimerQueue::Clock::now()) return;
  g->pending_members.erase(it);
  if (g->is(GroupState::kPreparingRebalance)) try_complete_join(*g);
}

void GroupCoordinator::on_rebalance_timeout(const std::weak_ptr<GroupMetadata>& weak, uint64_t join_epoch) {
  auto g = weak.lock();
  if (!g) return;
  std::lock_guard lock(g->mu);
  if (g->join_epoch != join_epoch || !g->is(GroupState::kPreparingRebalance)) return;
  coordinator::log().info("group {}: rebalance timed out with {} of {} member(s) joined", escaped(g->group_id()),
                          g->awaiting_join_count(), g->size());
  complete_join(*g);
}

void GroupCoordinator::on_initial_delay(const std::weak_ptr<GroupMetadata>& weak, uint64_t join_epoch) {
  auto g = weak.lock();
  if (!g) return;
  std::lock_guard lock(g->mu);
  if (g->join_epoch != join_epoch || !g->is(GroupState::kPreparingRebalance)) return;
  g->initial_delay_pending = false;
  auto timeout = std::chrono::milliseconds(g->max_rebalance_timeout_ms());
  timers_.schedule_after(timeout, [this, weak, join_epoch] { on_rebalance_timeout(weak, join_epoch); });
  try_complete_join(*g);
}

void GroupCoordinator::on_sync_timeout(const std::weak_ptr<GroupMetadata>& weak, uint64_t sync_epoch) {
  auto g = weak.lock();
  if (!g) return;
  std::lock_guard lock(g->mu);
  if (g->sync_epoch != sync_epoch || g->pending_sync.empty()) return;
  if (!g->is(GroupState::kCompletingRebalance) && !g->is(GroupState::kStable)) return;
  auto missing = g->pending_sync;
  for (const auto& id : missing) {
    coordinator::log().info("group {}: member {} did not send SyncGroup in time", escaped(g->group_id()), escaped(id));
    remove_member_and_update_group(*g, id, "no SyncGroup within the rebalance timeout");
  }
}

void GroupCoordinator::schedule_retention() {
  timers_.schedule_after(std::chrono::milliseconds(config_.offsets_retention_check_interval_ms), [this] {
    int n = expire_offsets(now_ms());
    if (n > 0) coordinator::log().info("group coordinator: expired {} committed offset(s)", n);
    schedule_retention();
  });
}

}  // namespace skiff::group
