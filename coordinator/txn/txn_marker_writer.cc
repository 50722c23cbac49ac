#include "coordinator/txn/txn_marker_writer.h"

#include <atomic>
#include <boost/asio/post.hpp>

#include "common/log_escape.h"
#include "common/wall_clock.h"
#include "coordinator/runtime/storage_errors.h"
#include "coordinator/txn/txn_log.h"

namespace skiff::txn {
namespace {

constexpr int32_t kCoordinatorEpoch = 0;  // one node: the coordinator never moves

// Joins the log appends and the sink completions into one `done`.
struct Join {
  std::atomic<int> left;
  std::atomic<int16_t> error{0};
  std::function<void(ErrorCode)> done;
  TxnMarkerWriterImpl::Post post;
  void finish(ErrorCode e) {
    if (e != ErrorCode::kNone) {
      int16_t none = 0;
      error.compare_exchange_strong(none, static_cast<int16_t>(e));
    }
    if (left.fetch_sub(1) == 1) post([d = std::move(done), e = static_cast<ErrorCode>(error.load())] { d(e); });
  }
};

}  // namespace

TxnMarkerWriterImpl::TxnMarkerWriterImpl(storage::LogManager& logs, MarkerAppended appended,
                                         TxnOffsetMarkerSink* offsets, Post post)
    : logs_(logs),
      appended_(std::move(appended)),
      offsets_(offsets),
      post_(std::move(post)),
      flushes_([](const MarkedLogs& marked) {
        bool durable = true;
        for (const auto& [_, log] : marked.logs) durable = static_cast<bool>(log->flush()) && durable;
        return durable;
      }),
      work_(boost::asio::make_work_guard(io_)),
      thread_([this] { io_.run(); }) {}

TxnMarkerWriterImpl::~TxnMarkerWriterImpl() { stop(); }

void TxnMarkerWriterImpl::stop() {
  work_.reset();
  io_.stop();
  if (thread_.joinable()) thread_.join();
  flushes_.stop();  // the flushes under way complete, their completions posted
}

ErrorCode TxnMarkerWriterImpl::append_to_logs(int64_t producer_id, int16_t producer_epoch, bool commit,
                                              const std::set<TopicPartition>& partitions, MarkedLogs& marked) {
  ErrorCode first = ErrorCode::kNone;
  for (const auto& tp : partitions) {
    if (tp.topic == kOffsetsTopic) continue;
    auto log = logs_.get_log(tp.topic, tp.partition);
    if (!log) {
      txn_log().info("transaction marker for producer {} skipped: {}-{} no longer exists", producer_id,
                     escaped(tp.topic), tp.partition);
      continue;
    }
    auto e = append_log_marker(*log, appended_, tp, producer_id, producer_epoch, commit, kCoordinatorEpoch,
                               /*transaction_version=*/0);
    if (e != ErrorCode::kNone && first == ErrorCode::kNone) first = e;
    if (e == ErrorCode::kNone) marked.logs.emplace(log.get(), std::move(log));
  }
  return first;
}

ErrorCode append_log_marker(storage::Log& log, const MarkerAppended& appended, const TopicPartition& tp,
                            int64_t producer_id, int16_t producer_epoch, bool commit, int32_t coordinator_epoch,
                            int16_t transaction_version) {
  auto r = log.append_marker(producer_id, producer_epoch, commit, coordinator_epoch, transaction_version,
                             /*leader_epoch=*/0, wall_clock_ms());
  if (!r) {
    txn_log().warn("{} marker for producer {} epoch {} on {}-{} failed: {}", commit ? "COMMIT" : "ABORT", producer_id,
                   producer_epoch, escaped(tp.topic), tp.partition, escaped(r.error().message));
    return to_error_code(r.error());
  }
  if (appended) appended(tp.topic, tp.partition);
  return ErrorCode::kNone;
}

void TxnMarkerWriterImpl::write_markers(int64_t producer_id, int16_t producer_epoch, bool commit,
                                        const std::set<TopicPartition>& partitions,
                                        std::function<void(ErrorCode)> done) {
  boost::asio::post(io_, [this, producer_id, producer_epoch, commit, partitions, done = std::move(done)]() mutable {
    std::vector<int32_t> offsets_partitions;
    for (const auto& tp : partitions)
      if (tp.topic == kOffsetsTopic && offsets_) offsets_partitions.push_back(tp.partition);
    auto join = std::make_shared<Join>();
    join->left = static_cast<int>(offsets_partitions.size()) + 1;
    join->done = std::move(done);
    join->post = post_;
    ErrorCode logs_result = ErrorCode::kUnknownServerError;
    MarkedLogs marked;
    try {
      logs_result = append_to_logs(producer_id, producer_epoch, commit, partitions, marked);
    } catch (const std::exception& e) {
      txn_log().error("transaction markers for producer {} failed: {}", producer_id, escaped(e.what()));
    }
    for (int32_t p : offsets_partitions)
      offsets_->on_marker(producer_id, producer_epoch, commit, p, [join](ErrorCode e) { join->finish(e); });
    if (marked.logs.empty()) return join->finish(logs_result);
    flushes_.submit(std::move(marked), [join, logs_result](bool durable) {
      join->finish(durable ? logs_result : ErrorCode::kKafkaStorageError);
    });
  });
}

}  // namespace skiff::txn
