// SharePartitionManager: see the header.
#include "share/share_partition_manager.h"

#include <memory>
#include <set>
#include <vector>

namespace skiff::share {

namespace {

constexpr const char* kUnknownTopicOrPartition = "This server does not host this topic-partition.";

// Callbacks out of a partition (answers to the handlers, purgatory wake-ups)
// run after its lock is released, so they may take other partitions' locks
// without an order between them: the outermost PartitionLock of the thread
// runs what was deferred once it unlocks.
thread_local std::vector<std::function<void()>>* t_deferred = nullptr;

void defer(std::function<void()> fn) {
  if (t_deferred) {
    t_deferred->push_back(std::move(fn));
  } else {
    fn();
  }
}

class PartitionLock {
 public:
  explicit PartitionLock(std::recursive_mutex& mu) : lock_(mu), outer_(t_deferred == nullptr) {
    if (outer_) t_deferred = &list_;
  }
  PartitionLock(std::recursive_mutex& mu, std::try_to_lock_t) : lock_(mu, std::try_to_lock), outer_(false) {
    if (lock_.owns_lock() && t_deferred == nullptr) {
      outer_ = true;
      t_deferred = &list_;
    }
  }
  bool owns() const { return lock_.owns_lock(); }
  ~PartitionLock() {
    if (!outer_) return;
    t_deferred = nullptr;
    lock_.unlock();
    for (auto& fn : list_) fn();
  }
  PartitionLock(const PartitionLock&) = delete;
  PartitionLock& operator=(const PartitionLock&) = delete;

 private:
  std::unique_lock<std::recursive_mutex> lock_;
  bool outer_;
  std::vector<std::function<void()>> list_;
};

}  // namespace

SharePartitionManager::SharePartitionManager(StatePersister& persister, const ShareGroupConfigPort& config,
                                             int32_t max_share_sessions, Ports ports)
    : persister_(persister), config_(config), ports_(std::move(ports)), sessions_(max_share_sessions) {}

std::shared_ptr<SharePartitionManager::Entry> SharePartitionManager::find(const std::string& group_id,
                                                                          const TopicIdPartition& tp) const {
  std::lock_guard lock(mu_);
  auto it = partitions_.find({group_id, tp});
  return it == partitions_.end() ? nullptr : it->second;
}

std::shared_ptr<SharePartitionManager::Entry> SharePartitionManager::get_or_create(const std::string& group_id,
                                                                                   const TopicIdPartition& tp) {
  std::lock_guard lock(mu_);
  auto& slot = partitions_[{group_id, tp}];
  if (slot) return slot;
  auto e = std::make_shared<Entry>();
  e->group_id = group_id;
  e->tp = tp;
  std::weak_ptr<Entry> weak = e;
  SharePartition::Ports p;
  p.now_ms = ports_.now_ms;
  p.schedule = [this, weak](int64_t delay, std::function<void()> fn) {
    if (!ports_.schedule) return;
    ports_.schedule(delay, [weak, fn = std::move(fn)] {
      auto entry = weak.lock();
      if (!entry) return;  // the partition was dropped: its timers are stale
      PartitionLock l(entry->mu);
      if (entry->sp) fn();
    });
  };
  // A write keeps its partition alive until it completes, so the
  // acknowledgement waiting on it always gets its answer.
  p.write = [this, weak](const PersistedState& update, std::function<void(ErrorCode, std::string)> done) {
    auto entry = weak.lock();
    if (!entry) return;
    PartitionRef ref{entry->group_id, entry->tp.topic_id, entry->tp.partition};
    persister_.write(ref, update, [entry, done = std::move(done)](ErrorCode code, std::string message) {
      PartitionLock l(entry->mu);
      done(code, std::move(message));
    });
  };
  p.on_lock_timeout = [this](uint64_t records) { metrics_.acquisition_lock_timeouts().add(records); };
  p.on_acquirable = [this, group_id, tp] {
    defer([this, group_id, tp] {
      if (ports_.on_acquirable) ports_.on_acquirable(group_id, tp);
    });
  };
  if (ports_.dead_letters) {
    DeadLetterQueue* dlq = ports_.dead_letters;
    p.dlq_enabled = [dlq, group_id] { return dlq->enabled(group_id); };
    // Like a write, a DLQ copy keeps its partition alive until it is done.
    p.dead_letter = [dlq, weak](DeadLetterRecords records, std::function<void()> done) {
      auto entry = weak.lock();
      if (!entry) return;
      dlq->enqueue(std::move(records), [entry, done = std::move(done)] {
        PartitionLock l(entry->mu);
        if (entry->sp) done();
      });
    };
  }
  int32_t epoch = ports_.leader_epoch ? ports_.leader_epoch(tp) : 0;
  e->sp = std::make_unique<SharePartition>(group_id, tp.topic_id, tp.partition, epoch, &config_, std::move(p));
  slot = e;
  return e;
}

void SharePartitionManager::remove(const std::shared_ptr<Entry>& e) {
  std::lock_guard lock(mu_);
  auto it = partitions_.find({e->group_id, e->tp});
  if (it != partitions_.end() && it->second == e) partitions_.erase(it);
}

bool SharePartitionManager::fences(ErrorCode code) {
  return code == ErrorCode::kNotLeaderOrFollower || code == ErrorCode::kFencedStateEpoch ||
         code == ErrorCode::kGroupIdNotFound || code == ErrorCode::kUnknownTopicOrPartition;
}

void SharePartitionManager::maybe_initialize(const std::string& group_id, const TopicIdPartition& tp,
                                             std::function<void(ShareResult)> done) {
  auto e = get_or_create(group_id, tp);
  {
    std::unique_lock l(e->mu);
    switch (e->sp->state()) {
      case SharePartition::State::kActive:
        l.unlock();
        done({});
        return;
      case SharePartition::State::kInitializing:
        e->waiters.push_back(std::move(done));
        return;
      case SharePartition::State::kFailed:
      case SharePartition::State::kFenced:
        l.unlock();
        remove(e);
        done({ErrorCode::kNotLeaderOrFollower, "The share partition is fenced."});
        return;
      case SharePartition::State::kEmpty:
        e->sp->begin_initialize();
        e->waiters.push_back(std::move(done));
        break;
    }
  }
  int32_t epoch = ports_.leader_epoch ? ports_.leader_epoch(tp) : 0;
  persister_.read({group_id, tp.topic_id, tp.partition}, epoch,
                  [this, e](ErrorCode code, const std::string& message, const PersistedState& state) {
                    on_loaded(e, code, message, state);
                  });
}

void SharePartitionManager::on_loaded(const std::shared_ptr<Entry>& e, ErrorCode code, const std::string& message,
                                      const PersistedState& state) {
  std::vector<std::function<void(ShareResult)>> waiters;
  ShareResult result;
  {
    PartitionLock l(e->mu);
    TopicIdPartition tp = e->tp;
    result = e->sp->complete_initialize(code, message, state, [this, tp](int64_t ts) {
      return ports_.offset_for_timestamp ? ports_.offset_for_timestamp(tp, ts) : int64_t{0};
    });
    waiters.swap(e->waiters);
  }
  if (!result.ok()) remove(e);  // a later fetch loads it again
  for (auto& w : waiters) w(result);
  if (result.ok() && ports_.on_acquirable) ports_.on_acquirable(e->group_id, e->tp);
}

bool SharePartitionManager::with_partition(const std::string& group_id, const TopicIdPartition& tp,
                                           const std::function<void(SharePartition&)>& fn, bool try_only) {
  auto e = find(group_id, tp);
  if (!e) return false;
  auto l = try_only ? std::make_unique<PartitionLock>(e->mu, std::try_to_lock) : std::make_unique<PartitionLock>(e->mu);
  if (!l->owns()) return false;
  if (!e->sp || e->sp->state() != SharePartition::State::kActive) return false;
  fn(*e->sp);
  return true;
}

namespace {
// Collects per-partition answers; calls done once all arrived.
struct Gather {
  std::mutex mu;
  SharePartitionManager::AckResults results;
  size_t remaining;
  std::function<void(SharePartitionManager::AckResults)> done;
  void put(size_t i, ShareResult r) {
    bool last = false;
    {
      std::lock_guard l(mu);
      results[i].second = std::move(r);
      last = --remaining == 0;
    }
    if (last) done(std::move(results));
  }
};
}  // namespace

void SharePartitionManager::acknowledge(
    const std::string& group_id, const std::string& member_id,
    const std::vector<std::pair<TopicIdPartition, std::vector<AcknowledgementBatch>>>& acks,
    std::function<void(AckResults)> done) {
  if (acks.empty()) {
    done({});
    return;
  }
  std::set<Uuid> topics;
  for (const auto& [tp, batches] : acks) topics.insert(tp.topic_id);
  metrics_.share_acknowledgement_requests().add(topics.size());
  auto g = std::make_shared<Gather>();
  g->remaining = acks.size();
  g->done = std::move(done);
  for (const auto& [tp, batches] : acks) g->results.push_back({tp, {}});
  for (size_t i = 0; i < acks.size(); ++i) {
    const auto& [tp, batches] = acks[i];
    auto e = find(group_id, tp);
    bool applied = false;
    if (e) {
      PartitionLock l(e->mu);
      if (e->sp && e->sp->state() == SharePartition::State::kActive) {
        applied = true;
        e->sp->acknowledge(member_id, batches, [this, g, i, e, acked = batches](ShareResult r) {
          count_acknowledged(r, acked);
          if (fences(r.code)) {
            e->sp->mark_fenced();
            remove(e);
          }
          defer([g, i, r = std::move(r)]() mutable { g->put(i, std::move(r)); });
        });
      }
    }
    if (!applied) {
      metrics_.failed_share_acknowledgement_requests().add();
      g->put(i, {ErrorCode::kUnknownTopicOrPartition, kUnknownTopicOrPartition});
    }
    if (ports_.on_acquirable) ports_.on_acquirable(group_id, tp);
  }
}

void SharePartitionManager::release_session(const std::string& group_id, const std::string& member_id,
                                            std::function<void(ShareResult, AckResults)> done) {
  auto parts = sessions_.remove({group_id, member_id});
  if (!parts) {
    done({ErrorCode::kShareSessionNotFound, kShareSessionNotFound}, {});
    return;
  }
  if (parts->empty()) {
    done({}, {});
    return;
  }
  auto g = std::make_shared<Gather>();
  g->remaining = parts->size();
  g->done = [done = std::move(done)](AckResults r) { done({}, std::move(r)); };
  for (const TopicIdPartition& tp : *parts) g->results.push_back({tp, {}});
  for (size_t i = 0; i < parts->size(); ++i) {
    const TopicIdPartition& tp = (*parts)[i];
    auto e = find(group_id, tp);
    bool applied = false;
    if (e) {
      PartitionLock l(e->mu);
      if (e->sp && e->sp->state() == SharePartition::State::kActive) {
        applied = true;
        e->sp->release_acquired_records(member_id, [this, g, i, e](ShareResult r) {
          if (fences(r.code)) {
            e->sp->mark_fenced();
            remove(e);
          }
          defer([g, i, r = std::move(r)]() mutable { g->put(i, std::move(r)); });
        });
      }
    }
    if (!applied) g->put(i, {ErrorCode::kUnknownTopicOrPartition, kUnknownTopicOrPartition});
    if (ports_.on_acquirable) ports_.on_acquirable(group_id, tp);
  }
}

void SharePartitionManager::on_disconnect(const std::string& connection_id) {
  auto d = sessions_.on_disconnect(connection_id);
  if (!d) return;
  // Kafka's ShareSessionEvictionsPerSec: a live session's connection closed.
  if (d->member_left) metrics_.session_evictions().add();
  if (d->member_left) {
    for (const TopicIdPartition& tp : d->partitions) {
      with_partition(d->key.group_id, tp, [&](SharePartition& sp) {
        sp.release_acquired_records(d->key.member_id, [](const ShareResult&) {});
      });
      if (ports_.on_acquirable) ports_.on_acquirable(d->key.group_id, tp);
    }
  }
  if (d->group_empty) {
    std::lock_guard lock(mu_);
    for (auto it = partitions_.begin(); it != partitions_.end();) {
      it = it->first.first == d->key.group_id ? partitions_.erase(it) : std::next(it);
    }
  }
}

void SharePartitionManager::on_log_start_offset(const TopicIdPartition& tp, int64_t log_start_offset) {
  std::vector<std::shared_ptr<Entry>> entries;
  {
    std::lock_guard lock(mu_);
    for (auto& [key, e] : partitions_)
      if (key.second == tp) entries.push_back(e);
  }
  for (auto& e : entries) {
    PartitionLock l(e->mu);
    if (e->sp && e->sp->state() == SharePartition::State::kActive) e->sp->update_cache_and_offsets(log_start_offset);
  }
}

void SharePartitionManager::on_share_groups_disabled() {
  sessions_.remove_all();
  std::lock_guard lock(mu_);
  partitions_.clear();
}

size_t SharePartitionManager::partition_count() const {
  std::lock_guard lock(mu_);
  return partitions_.size();
}

// Kafka's ShareGroupMetrics.recordAcknowledgement: a batch of one type
// counts its records, a batch of per-record types one per record.
void SharePartitionManager::count_acknowledged(const ShareResult& r, const std::vector<AcknowledgementBatch>& batches) {
  if (!r.ok()) {
    metrics_.failed_share_acknowledgement_requests().add();
    return;
  }
  for (const auto& b : batches) {
    if (b.acknowledge_types.size() == 1) {
      metrics_.record_acknowledgement(b.acknowledge_types[0],
                                      static_cast<uint64_t>(b.last_offset - b.first_offset + 1));
    } else {
      for (int8_t type : b.acknowledge_types) metrics_.record_acknowledgement(type);
    }
  }
}

std::vector<SharePartitionStats> SharePartitionManager::partition_stats() const {
  std::vector<std::shared_ptr<Entry>> all;
  {
    std::lock_guard lock(mu_);
    all.reserve(partitions_.size());
    for (const auto& [key, e] : partitions_) all.push_back(e);
  }
  std::vector<SharePartitionStats> out;
  out.reserve(all.size());
  for (const auto& e : all) {
    PartitionLock l(e->mu);
    if (!e->sp || e->sp->state() != SharePartition::State::kActive) continue;
    const SharePartition& sp = *e->sp;
    out.push_back({e->group_id, e->tp, sp.in_flight_record_count(), static_cast<int64_t>(sp.cached_batches()),
                   sp.start_offset(), sp.delivery_complete_count(), sp.lock_timeouts()});
  }
  return out;
}

}  // namespace skiff::share
