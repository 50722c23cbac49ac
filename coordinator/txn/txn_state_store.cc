#include "coordinator/txn/txn_state_store.h"

#include "common/wall_clock.h"
#include "log/batch_builder.h"
#include "log/record_batch.h"

namespace skiff::txn {
namespace {

std::string_view as_chars(const std::vector<uint8_t>& b) { return {reinterpret_cast<const char*>(b.data()), b.size()}; }

// The records of one stored batch, appended to `out`.
void decode_batch(const storage::RecordBatchView& batch, std::vector<TxnLogRecord>& out) {
  if (batch.is_control()) return;
  coordinator::for_each_record(batch, kTransactionStateTopic,
                               [&out](auto key, auto value) { out.push_back(decode_txn_log_record(key, value)); });
}

}  // namespace

TxnStateStore::TxnStateStore(storage::LogManager& logs, int32_t segment_bytes, Post post)
    : topic_(logs, {kTransactionStateTopic, 1, segment_bytes}), post_(std::move(post)) {}

void TxnStateStore::open() { topic_.open(); }

std::vector<TxnLogRecord> TxnStateStore::load() const {
  std::vector<TxnLogRecord> out;  // empty when no transactional producer created the topic yet
  topic_.replay([](int32_t) {}, [&out](const storage::RecordBatchView& batch) { decode_batch(batch, out); });
  return out;
}

std::optional<coordinator::FlushPoints> TxnStateStore::write(const std::vector<uint8_t>& key,
                                                             const std::optional<std::vector<uint8_t>>& value,
                                                             std::function<void(ErrorCode)>& done) {
  storage::BatchBuilder b;
  b.add(as_chars(key), value ? std::optional(as_chars(*value)) : std::nullopt, wall_clock_ms());
  ErrorCode error = ErrorCode::kUnknownServerError;
  auto written = topic_.append(0, b.build(), &error);
  if (!written) post_([done = std::move(done), error] { done(error); });
  return written;
}

void TxnStateStore::append(const std::string&, std::vector<uint8_t> key, std::optional<std::vector<uint8_t>> value,
                           std::function<void(ErrorCode)> done) {
  auto written = write(key, value, done);
  if (!written) return;
  topic_.flush_async(std::move(*written), [post = post_, done = std::move(done)](bool durable) {
    post([done, durable] { done(durable ? ErrorCode::kNone : ErrorCode::kKafkaStorageError); });
  });
}

void TxnStateStore::append_written(const std::string&, std::vector<uint8_t> key,
                                   std::optional<std::vector<uint8_t>> value, std::function<void(ErrorCode)> done) {
  if (write(key, value, done)) post_([done = std::move(done)] { done(ErrorCode::kNone); });
}

}  // namespace skiff::txn
