// TxnHost: runs the transaction coordinator (coordinator/txn/txn_coordinator.h, pure
// logic) inside the broker. It owns the coordinator, its durable state
// (__transaction_state, coordinator/txn/txn_state_store.h), its marker writer
// (coordinator/txn/txn_marker_writer.h), the producer id source (api/admin/ProducerIds:
// idempotent and transactional producers share one id space) and the two
// cleanup timers (transaction.abort.timed.out.transaction.cleanup.interval.ms,
// transaction.remove.expired.transaction.cleanup.interval.ms; and one for
// additions parked while a transaction ends). It is also
// Produce's TxnProduceGate (coordinator/txn/txn_gates.h).
//
// Threads: one small io_context thread ("the coordinator thread") with one
// strand; every coordinator call, completion and timer runs there. Handlers
// call submit() from their own threads: it posts and returns at once; the
// work answers through a copied Responder from the strand, so no handler
// thread ever waits. State writes (append + fsync) run on the strand; marker
// appends run on the marker writer's thread.
//
// Startup: start() reads __transaction_state (on the caller's thread), then
// posts the replay onto the strand; until it has run, submit() answers
// COORDINATOR_LOAD_IN_PROGRESS. A corrupt state log throws from start().
#pragma once

#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <thread>

#include "coordinator/txn/txn_coordinator.h"
#include "coordinator/txn/txn_gates.h"
#include "coordinator/txn/txn_marker_writer.h"
#include "coordinator/txn/txn_state_store.h"

namespace skiff::txn {

class ProducerIds;

struct TxnHostConfig {
  TxnConfig coordinator;
  int32_t state_segment_bytes = 104857600;  // transaction.state.log.segment.bytes
};

class TxnHost : public TxnProduceGate {
 public:
  TxnHost(TxnHostConfig config, storage::LogManager& logs, ProducerIds& ids, MarkerAppended marker_appended,
          TxnOffsetMarkerSink* offsets);
  ~TxnHost() override;

  void start();  // throws std::runtime_error / protocol::DecodeError on an unusable state log
  void stop();   // idempotent; pending work is dropped (its clients time out and retry)

  // Runs `work` on the strand with the loaded coordinator. `fail` answers
  // instead with COORDINATOR_LOAD_IN_PROGRESS before the load, or
  // UNKNOWN_SERVER_ERROR when `work` throws (a broken invariant: logged).
  void submit(std::function<void(TxnCoordinator&)> work, std::function<void(ErrorCode)> fail);

  void check(Check check, std::function<void(std::map<TopicPartition, ErrorCode>)> done) override;

  bool loaded() const { return loaded_.load(); }

 private:
  class Clock;
  class Ids;
  void post(std::function<void()> fn);
  void arm_abort_timer();
  void arm_expire_timer();
  void arm_park_timer();  // at the earliest deadline of a parked addition

  TxnHostConfig config_;
  boost::asio::io_context io_;
  boost::asio::strand<boost::asio::io_context::executor_type> strand_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  std::unique_ptr<Clock> clock_;
  std::unique_ptr<Ids> ids_;
  TxnStateStore store_;
  TxnMarkerWriterImpl markers_;
  TxnCoordinator coordinator_;
  boost::asio::steady_timer abort_timer_;
  boost::asio::steady_timer expire_timer_;
  boost::asio::steady_timer park_timer_;
  std::optional<int64_t> park_deadline_;  // what park_timer_ is armed for
  std::atomic<bool> loaded_{false};
  std::atomic<bool> stopped_{false};
  std::thread thread_;
};

}  // namespace skiff::txn
