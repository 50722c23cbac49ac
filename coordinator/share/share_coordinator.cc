#include "coordinator/share/share_coordinator.h"

#include <boost/asio/post.hpp>
#include <chrono>

#include "common/log_escape.h"
#include "common/wall_clock.h"
#include "coordinator/runtime/coordinator_log.h"
#include "coordinator/share/share_records.h"
#include "log/batch_builder.h"
#include "protocol/error_names.h"

namespace skiff::sharecoord {
namespace {

std::string_view as_chars(const std::vector<uint8_t>& b) { return {reinterpret_cast<const char*>(b.data()), b.size()}; }

constexpr const char* kLoading = "The coordinator is loading and hence can't process requests.";
constexpr const char* kNotAvailable = "Share coordinator is not available.";

TopicPartitionCount from_logs(storage::LogManager& logs) {
  return [&logs](const Uuid& id) -> std::optional<int32_t> {
    auto t = logs.topic_by_id(id);
    if (!t) return std::nullopt;
    return t->partitions;
  };
}

}  // namespace

class ShareCoordinator::WallClock : public ShareClock {
 public:
  int64_t now_ms() override { return wall_clock_ms(); }
};

ShareCoordinator::ShareCoordinator(ShareCoordinatorConfig config, storage::LogManager& logs,
                                   std::unique_ptr<ShareClock> clock, TopicPartitionCount topics)
    : config_(config),
      logs_(logs),
      clock_(clock ? std::move(clock) : std::make_unique<WallClock>()),
      topic_(logs, {kShareGroupStateTopic, config.num_partitions, config.segment_bytes, "delete"}),
      machine_(config.core, *clock_, topics ? std::move(topics) : from_logs(logs)),
      strand_(boost::asio::make_strand(io_)),
      work_(boost::asio::make_work_guard(io_)),
      prune_timer_(strand_),
      cold_timer_(strand_) {}

ShareCoordinator::~ShareCoordinator() { stop(); }

void ShareCoordinator::start() {
  topic_.open();
  partitions_ = topic_.partitions();
  appended_end_.assign(partitions_, 0);
  durable_end_.assign(partitions_, 0);
  pruned_to_.assign(partitions_, 0);
  const auto started = std::chrono::steady_clock::now();
  size_t records = 0;
  int32_t partition = 0;
  topic_.replay([&partition](int32_t p) { partition = p; },
                [&](const storage::RecordBatchView& batch) {
                  if (batch.is_control()) return;
                  int64_t offset = batch.base_offset();
                  coordinator::for_each_record(batch, kShareGroupStateTopic, [&](auto key, auto value) {
                    machine_.replay(partition, offset++, decode_share_record(key, value));
                    ++records;
                  });
                  appended_end_[partition] = durable_end_[partition] = batch.next_offset();
                });
  loaded_ = true;
  const auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  coordinator::log().info("share coordinator loaded {} record(s) of {} ({} share-partition(s)) in {:.1f} ms", records,
                          kShareGroupStateTopic, machine_.size(), ms);
  post([this] {
    arm_prune_timer();
    arm_cold_timer();
  });
  thread_ = std::thread([this] { io_.run(); });
}

void ShareCoordinator::stop() {
  if (stopped_.exchange(true)) return;
  topic_.stop();  // the fsyncs under way complete, their completions posted
  work_.reset();
  io_.stop();
  if (thread_.joinable()) thread_.join();
}

int32_t ShareCoordinator::partition_for(const Key& key) const {
  return sharecoord::partition_for(key, partitions_ > 0 ? partitions_ : config_.num_partitions);
}

void ShareCoordinator::post(std::function<void()> fn) {
  boost::asio::post(strand_, [fn = std::move(fn)] {
    try {
      fn();
    } catch (const std::exception& e) {
      coordinator::log().error("share coordinator: {}", escaped(e.what()));
    }
  });
}

void ShareCoordinator::submit(std::function<void()> op, std::function<void(ErrorCode, std::string)> refuse) {
  if (stopped_) {
    refuse(ErrorCode::kCoordinatorNotAvailable, kNotAvailable);
    return;
  }
  boost::asio::post(strand_, [this, op = std::move(op), refuse = std::move(refuse)] {
    if (!loaded_) {
      refuse(ErrorCode::kCoordinatorLoadInProgress, kLoading);
      return;
    }
    try {
      op();
    } catch (const std::exception& e) {
      coordinator::log().error("share coordinator: {}", escaped(e.what()));
      refuse(ErrorCode::kUnknownServerError, e.what());
    }
  });
}

void ShareCoordinator::append(const ShareRecord& record, const std::string& what, Done done) {
  const int32_t p = partition_for(record.key);
  const auto enc = encode_share_record(record);
  storage::BatchBuilder b;
  b.add(as_chars(enc.key), enc.value ? std::optional(as_chars(*enc.value)) : std::nullopt, clock_->now_ms());
  ErrorCode error = ErrorCode::kUnknownServerError;
  auto written = topic_.append(p, b.build(), &error);
  if (!written) {
    done(ErrorCode::kCoordinatorNotAvailable, "Unable to " + what + ": the state could not be appended (" +
                                                  std::string(protocol::error_name(code(error))) + ")");
    return;
  }
  const int64_t end = written->ends[p];
  machine_.replay(p, end - 1, record);
  appended_end_[p] = std::max(appended_end_[p], end);
  topic_.flush_async(std::move(*written), [this, p, end, what, done = std::move(done)](bool durable) {
    post([this, p, end, what, done, durable] {
      if (!durable) {
        done(ErrorCode::kCoordinatorNotAvailable, "Unable to " + what + ": the state could not be made durable");
        return;
      }
      durable_end_[p] = std::max(durable_end_[p], end);
      done(ErrorCode::kNone, {});
    });
  });
}

void ShareCoordinator::after_durable(int32_t p, const std::string& what, Done done) {
  if (durable_end_[p] >= appended_end_[p]) {
    done(ErrorCode::kNone, {});
    return;
  }
  coordinator::FlushPoints points;
  const int64_t end = appended_end_[p];
  points.ends[p] = end;
  topic_.flush_async(std::move(points), [this, p, end, what, done = std::move(done)](bool durable) {
    post([this, p, end, what, done, durable] {
      if (!durable) {
        done(ErrorCode::kCoordinatorNotAvailable, "Unable to " + what + ": the state could not be made durable");
        return;
      }
      durable_end_[p] = std::max(durable_end_[p], end);
      done(ErrorCode::kNone, {});
    });
  });
}

void ShareCoordinator::initialize(const Key& key, int32_t state_epoch, int64_t start_offset, Done done) {
  auto refuse = [done](ErrorCode e, std::string m) { done(e, std::move(m)); };
  submit(
      [this, key, state_epoch, start_offset, done = std::move(done)] {
        auto r = machine_.initialize(key, state_epoch, start_offset);
        if (r.error != ErrorCode::kNone) return done(r.error, r.message);
        append(*r.record, "initialize share group state", done);
      },
      refuse);
}

void ShareCoordinator::read(const Key& key, int32_t leader_epoch, ReadDone done) {
  auto refuse = [done](ErrorCode e, std::string m) { done(e, std::move(m), {}); };
  submit(
      [this, key, leader_epoch, done = std::move(done)] {
        auto r = machine_.read(key, leader_epoch);
        if (r.error != ErrorCode::kNone) return done(r.error, r.message, {});
        auto answer = [done, state = std::move(r.state)](ErrorCode e, std::string m) {
          done(e, std::move(m), e == ErrorCode::kNone ? state : ShareState{});
        };
        if (r.record) return append(*r.record, "read share group state", std::move(answer));
        after_durable(partition_for(key), "read share group state", std::move(answer));
      },
      refuse);
}

void ShareCoordinator::write(const Key& key, int32_t state_epoch, int32_t leader_epoch, int64_t start_offset,
                             int32_t delivery_complete_count, std::vector<StateBatch> batches, Done done) {
  auto refuse = [done](ErrorCode e, std::string m) { done(e, std::move(m)); };
  WriteRequest w{state_epoch, leader_epoch, start_offset, delivery_complete_count, std::move(batches)};
  submit(
      [this, key, w = std::move(w), done = std::move(done)] {
        auto r = machine_.write(key, w);
        if (r.error != ErrorCode::kNone) return done(r.error, r.message);
        append(*r.record, "write share group state", done);
      },
      refuse);
}

void ShareCoordinator::remove(const Key& key, Done done) {
  auto refuse = [done](ErrorCode e, std::string m) { done(e, std::move(m)); };
  submit(
      [this, key, done = std::move(done)] {
        auto r = machine_.remove(key);
        if (r.error != ErrorCode::kNone) return done(r.error, r.message);
        if (r.record) return append(*r.record, "delete share group state", done);
        after_durable(partition_for(key), "delete share group state", done);
      },
      refuse);
}

void ShareCoordinator::read_summary(const Key& key, SummaryDone done) {
  auto refuse = [done](ErrorCode e, std::string m) { done(e, std::move(m), {}); };
  submit(
      [this, key, done = std::move(done)] {
        auto r = machine_.read_summary(key);
        if (r.error != ErrorCode::kNone) return done(r.error, r.message, {});
        ShareSummary s{r.state_epoch, r.leader_epoch, r.start_offset, r.delivery_complete_count};
        after_durable(partition_for(key), "read share group state summary", [done, s](ErrorCode e, std::string m) {
          done(e, std::move(m), e == ErrorCode::kNone ? s : ShareSummary{});
        });
      },
      refuse);
}

// Moves each partition's log start to its last redundant offset, never past
// what is durable (Kafka prunes only committed offsets).
void ShareCoordinator::prune() {
  for (int32_t p = 0; p < partitions_; ++p) {
    auto off = machine_.last_redundant_offset(p);
    if (!off) continue;
    const int64_t to = std::min(*off, durable_end_[p]);
    if (to <= pruned_to_[p]) continue;
    try {
      auto r = topic_.log(p)->maybe_increment_log_start_offset(storage::Offset(to));
      if (!r) {
        coordinator::log().warn("{}-{}: pruning to {} failed: {}", kShareGroupStateTopic, p, to,
                                escaped(r.error().message));
        continue;
      }
      pruned_to_[p] = to;
    } catch (const std::exception& e) {
      coordinator::log().warn("{}-{}: pruning failed: {}", kShareGroupStateTopic, p, escaped(e.what()));
    }
  }
}

void ShareCoordinator::snapshot_cold() {
  for (auto& r : machine_.snapshot_cold())
    append(r, "snapshot a cold share-partition", [](ErrorCode, const std::string&) {});
  for (auto& r : machine_.tombstones_for_deleted_topics())
    append(r, "delete the state of a deleted topic", [](ErrorCode, const std::string&) {});
}

// Tests: the cold snapshots, then the pruning once they are durable.
void ShareCoordinator::run_periodic_jobs(std::function<void()> done) {
  post([this, done = std::move(done)] {
    snapshot_cold();
    auto pending = std::make_shared<int>(1);
    auto finish = [this, pending, done](ErrorCode, const std::string&) {
      if (--*pending > 0) return;
      prune();
      done();
    };
    for (int32_t p = 0; p < partitions_; ++p) {
      if (durable_end_[p] >= appended_end_[p]) continue;
      ++*pending;
      after_durable(p, "prune", finish);
    }
    finish(ErrorCode::kNone, {});
  });
}

void ShareCoordinator::arm_prune_timer() {
  prune_timer_.expires_after(std::chrono::milliseconds(config_.prune_interval_ms));
  prune_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;
    prune();
    arm_prune_timer();
  });
}

void ShareCoordinator::arm_cold_timer() {
  cold_timer_.expires_after(std::chrono::milliseconds(config_.core.cold_snapshot_interval_ms));
  cold_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;
    snapshot_cold();
    arm_cold_timer();
  });
}

}  // namespace skiff::sharecoord
