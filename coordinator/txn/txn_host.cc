#include "coordinator/txn/txn_host.h"

#include <algorithm>
#include <boost/asio/post.hpp>
#include <chrono>

#include "common/log_escape.h"
#include "common/wall_clock.h"
#include "coordinator/txn/producer_ids.h"
#include "coordinator/txn/txn_log.h"

namespace skiff::txn {

class TxnHost::Clock : public TxnClock {
 public:
  int64_t now_ms() override { return wall_clock_ms(); }
};

// New producer ids come from the same durable blocks as idempotent producers'.
class TxnHost::Ids : public TxnProducerIdSource {
 public:
  explicit Ids(ProducerIds& ids) : ids_(ids) {}
  Allocated allocate() override {
    auto r = ids_.init(-1, -1);
    return {r.error, r.producer_id};
  }

 private:
  ProducerIds& ids_;
};

TxnHost::TxnHost(TxnHostConfig config, storage::LogManager& logs, ProducerIds& ids, MarkerAppended marker_appended,
                 TxnOffsetMarkerSink* offsets)
    : config_(config),
      strand_(boost::asio::make_strand(io_)),
      work_(boost::asio::make_work_guard(io_)),
      clock_(std::make_unique<Clock>()),
      ids_(std::make_unique<Ids>(ids)),
      store_(logs, config.state_segment_bytes, [this](std::function<void()> fn) { post(std::move(fn)); }),
      markers_(logs, std::move(marker_appended), offsets, [this](std::function<void()> fn) { post(std::move(fn)); }),
      coordinator_(config.coordinator, *clock_, store_, *ids_, markers_),
      abort_timer_(strand_),
      expire_timer_(strand_),
      park_timer_(strand_) {}

TxnHost::~TxnHost() { stop(); }

void TxnHost::post(std::function<void()> fn) {
  boost::asio::post(strand_, [this, fn = std::move(fn)] {
    try {
      fn();
    } catch (const std::exception& e) {
      txn_log().error("transaction coordinator: {}", escaped(e.what()));
    }
  });
}

void TxnHost::start() {
  store_.open();
  auto started = std::chrono::steady_clock::now();
  auto records = std::make_shared<std::vector<TxnLogRecord>>(store_.load());
  post([this, records, started] {
    coordinator_.load(*records);
    loaded_ = true;
    auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    txn_log().info("transaction coordinator loaded {} record(s) of __transaction_state in {:.1f} ms", records->size(),
                   ms);
    arm_abort_timer();
    arm_expire_timer();
  });
  thread_ = std::thread([this] { io_.run(); });
}

void TxnHost::stop() {
  if (stopped_.exchange(true)) return;
  markers_.stop();
  store_.stop();  // the fsyncs under way complete, their completions posted
  work_.reset();
  io_.stop();
  if (thread_.joinable()) thread_.join();
}

void TxnHost::arm_abort_timer() {
  abort_timer_.expires_after(std::chrono::milliseconds(config_.coordinator.abort_timed_out_interval_ms));
  abort_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;
    try {
      coordinator_.abort_timed_out_transactions();
    } catch (const std::exception& e) {
      txn_log().error("transaction timeout scan failed: {}", escaped(e.what()));
    }
    arm_abort_timer();
  });
}

void TxnHost::arm_expire_timer() {
  expire_timer_.expires_after(std::chrono::milliseconds(config_.coordinator.remove_expired_interval_ms));
  expire_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;
    try {
      coordinator_.expire_transactional_ids();
    } catch (const std::exception& e) {
      txn_log().error("transactional id expiration failed: {}", escaped(e.what()));
    }
    arm_expire_timer();
  });
}

void TxnHost::arm_park_timer() {
  const auto next = coordinator_.next_parked_deadline();
  if (!next || (park_deadline_ && *park_deadline_ <= *next)) return;
  park_deadline_ = next;
  park_timer_.expires_after(std::chrono::milliseconds(std::max<int64_t>(0, *next - clock_->now_ms())));
  park_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;  // re-armed for an earlier deadline, or stopping
    park_deadline_.reset();
    coordinator_.expire_parked();
    arm_park_timer();
  });
}

void TxnHost::submit(std::function<void(TxnCoordinator&)> work, std::function<void(ErrorCode)> fail) {
  boost::asio::post(strand_, [this, work = std::move(work), fail = std::move(fail)] {
    if (!loaded_) {
      fail(ErrorCode::kCoordinatorLoadInProgress);
      return;
    }
    try {
      work(coordinator_);
    } catch (const std::exception& e) {
      txn_log().error("transaction coordinator: {}", escaped(e.what()));
      fail(ErrorCode::kUnknownServerError);
    }
    arm_park_timer();
  });
}

void TxnHost::check(Check c, std::function<void(std::map<TopicPartition, ErrorCode>)> done) {
  auto all = [parts = c.partitions](ErrorCode e) {
    std::map<TopicPartition, ErrorCode> out;
    for (const auto& tp : parts) out[tp] = e;
    return out;
  };
  auto work = [c, done, all](TxnCoordinator& coord) {
    if (!c.implicit_add) {
      done(coord.verify_partitions(c.transactional_id, c.producer_id, c.epoch, c.partitions));
      return;
    }
    coord.add_partitions(c.transactional_id, c.producer_id, c.epoch, c.partitions, /*client_tv=*/2,
                         [done, all](ErrorCode e) { done(all(e)); });
  };
  submit(std::move(work), [done, all](ErrorCode e) { done(all(e)); });
}

}  // namespace skiff::txn
