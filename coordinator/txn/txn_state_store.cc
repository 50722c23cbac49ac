#include "coordinator/txn/txn_state_store.h"

#include <stdexcept>

#include "common/log_escape.h"
#include "common/wall_clock.h"
#include "coordinator/runtime/storage_errors.h"
#include "coordinator/txn/txn_log.h"
#include "log/batch_builder.h"
#include "log/record_batch.h"
#include "protocol/errors.h"

namespace skiff::txn {
namespace {

std::string_view as_chars(const std::vector<uint8_t>& b) { return {reinterpret_cast<const char*>(b.data()), b.size()}; }

// The records of one stored batch, appended to `out`.
void decode_batch(const storage::RecordBatchView& batch, std::vector<TxnLogRecord>& out) {
  if (batch.is_control()) return;
  if (batch.compression() != storage::Compression::kNone)
    throw std::runtime_error("__transaction_state: compressed batch at offset " + std::to_string(batch.base_offset()) +
                             " (Skiff writes them uncompressed)");
  storage::RecordIterator it(batch);
  storage::RecordView r;
  while (it.next(r)) {
    if (!r.key) throw std::runtime_error("__transaction_state: record without a key");
    out.push_back(decode_txn_log_record(*r.key, r.value));
  }
  if (!it.ok())
    throw std::runtime_error("__transaction_state: malformed records at offset " + std::to_string(batch.base_offset()));
}

}  // namespace

TxnStateStore::TxnStateStore(storage::LogManager& logs, int32_t segment_bytes, Post post)
    : logs_(logs), segment_bytes_(segment_bytes), post_(std::move(post)) {}

void TxnStateStore::open() {
  if (logs_.topic(kTransactionStateTopic)) {
    log_ = logs_.get_log(kTransactionStateTopic, 0);
    if (!log_) throw std::runtime_error("__transaction_state-0 is missing");
  }
}

void TxnStateStore::create() {
  // segment.bytes has a 1 MiB floor as a topic config; below it (tests),
  // Kafka's internal.segment.bytes carries the size, as Kafka's own tests do.
  const char* size_key = segment_bytes_ >= (1 << 20) ? "segment.bytes" : "internal.segment.bytes";
  std::map<std::string, std::string> overrides{
      {"cleanup.policy", "compact"}, {size_key, std::to_string(segment_bytes_)}, {"compression.type", "uncompressed"}};
  auto r = logs_.create_topic(kTransactionStateTopic, 1, overrides);
  if (r.error != storage::LogErrc::kNone && r.error != storage::LogErrc::kTopicAlreadyExists)
    throw std::runtime_error("cannot create __transaction_state: " + r.message);
  log_ = logs_.get_log(kTransactionStateTopic, 0);
  if (!log_) throw std::runtime_error("__transaction_state-0 is missing after its creation");
  txn_log().info("created the internal topic __transaction_state (1 partition, cleanup.policy=compact)");
}

std::vector<TxnLogRecord> TxnStateStore::load() const {
  std::vector<TxnLogRecord> out;
  if (!log_) return out;  // no transactional producer yet
  storage::Offset next = log_->log_start_offset();
  const storage::Offset end = log_->log_end_offset();
  while (next.value < end.value) {
    auto rr = log_->read(next, 1 << 20);
    if (rr.error != storage::LogErrc::kNone)
      throw std::runtime_error("__transaction_state: read at offset " + std::to_string(next.value) + " failed");
    if (rr.slice.empty()) break;
    auto bytes = rr.slice.read_all();
    if (bytes.empty()) throw std::runtime_error("__transaction_state: unreadable segment");
    storage::BatchIterator batches(bytes);
    storage::RecordBatchView batch;
    int64_t before = next.value;
    while (batches.next(batch)) {
      if (batch.next_offset() <= next.value) continue;  // the part of the first batch before `next`
      decode_batch(batch, out);
      next = storage::Offset(batch.next_offset());
    }
    if (next.value == before) throw std::runtime_error("__transaction_state: no progress reading the log");
  }
  return out;
}

ErrorCode TxnStateStore::write(const std::vector<uint8_t>& key, const std::optional<std::vector<uint8_t>>& value) {
  if (!log_) create();
  const int64_t now = wall_clock_ms();
  storage::BatchBuilder b;
  b.add(as_chars(key), value ? std::optional(as_chars(*value)) : std::nullopt, now);
  auto batch = b.build();
  auto r = log_->append(std::span<uint8_t>(batch), /*leader_epoch=*/0, now);
  if (!r.ok()) {
    txn_log().error("__transaction_state append failed: {}", escaped(r.error_message));
    return to_error_code(r.error);
  }
  auto flushed = log_->flush_to(storage::Offset(r.last_offset.value + 1));
  if (flushed != storage::LogErrc::kNone) {
    txn_log().error("__transaction_state fsync failed");
    return ErrorCode::kKafkaStorageError;
  }
  return ErrorCode::kNone;
}

void TxnStateStore::append(const std::string&, std::vector<uint8_t> key, std::optional<std::vector<uint8_t>> value,
                           std::function<void(ErrorCode)> done) {
  ErrorCode e = ErrorCode::kUnknownServerError;
  try {
    e = write(key, value);
  } catch (const std::exception& ex) {
    txn_log().error("__transaction_state append failed: {}", escaped(ex.what()));
  }
  post_([done = std::move(done), e] { done(e); });
}

}  // namespace skiff::txn
