#include "api/handlers/produce_handler.h"

#include <chrono>

#include "api/api_log.h"
#include "api/purgatory.h"
#include "api/topics.h"
#include "log/record_batch.h"
#include "common/log_escape.h"

namespace skiff::api {
namespace {

using protocol::ProduceResponse;

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

ProduceResponse::PartitionProduceResponse partition_error(int32_t index, ErrorCode error,
                                                          std::optional<std::string> message = std::nullopt) {
  ProduceResponse::PartitionProduceResponse p;
  p.index = index;
  p.error_code = code(error);
  p.base_offset = -1;
  p.error_message = std::move(message);
  return p;
}

bool has_transactional_batch(std::span<uint8_t> records) {
  storage::BatchIterator it(records);
  storage::RecordBatchView batch;
  while (it.next(batch))
    if (batch.magic() >= 2 && batch.is_transactional()) return true;
  return false;
}

// zstd arrived with Produce v7 (KIP-110): an older request may not carry it
// (Kafka's ProduceRequest.validateRecords).
bool has_zstd_batch(std::span<uint8_t> records) {
  storage::BatchIterator it(records);
  storage::RecordBatchView batch;
  while (it.next(batch))
    if (batch.magic() >= 2 && batch.compression() == storage::Compression::kZstd) return true;
  return false;
}

template <class PerPartition>
ProduceResponse mirror(protocol::ProduceRequest& body, PerPartition&& answer) {
  ProduceResponse resp;
  for (auto& topic : body.topic_data) {
    ProduceResponse::TopicProduceResponse t;
    t.name = topic.name;
    for (auto& part : topic.partition_data) t.partition_responses.push_back(answer(topic.name, part));
    resp.responses.push_back(std::move(t));
  }
  return resp;
}

}  // namespace

ProduceResponse::PartitionProduceResponse ProduceHandler::append_partition(
    const std::string& topic, protocol::ProduceRequest::PartitionProduceData& data, int16_t version) {
  auto found = find_topic(services_, topic, /*allow_create=*/true);
  if (!found.topic) return partition_error(data.index, found.error);
  auto log = find_log(services_, topic, data.index);
  if (!log) return partition_error(data.index, ErrorCode::kUnknownTopicOrPartition);
  if (data.records.is_null() || data.records.size() == 0)
    return partition_error(data.index, ErrorCode::kInvalidRecord, "empty records");

  // The request owns its frame, so the batches can be rewritten in place.
  auto view = data.records.data();
  std::span<uint8_t> records(const_cast<uint8_t*>(view.data()), view.size());
  if (version < 7 && has_zstd_batch(records))
    return partition_error(data.index, ErrorCode::kUnsupportedCompressionType,
                           "Produce requests with version " + std::to_string(version) +
                               " are not allowed to use ZStandard compression");
  if (has_transactional_batch(records))
    return partition_error(data.index, ErrorCode::kInvalidTxnState, "Skiff does not support transactions yet");

  auto result = log->append(records, /*leader_epoch=*/0, now_ms());
  if (!result.ok()) {
    if (result.error == storage::LogErrc::kStorageError)
      api_log().error("append to {}-{} failed: {}", escaped(topic), data.index, escaped(result.error_message));
    auto p = partition_error(data.index, to_error_code(result.error),
                             result.error_message.empty() ? std::nullopt : std::optional(result.error_message));
    for (const auto& e : result.record_errors)  // v8+ carries them (KIP-467); older versions drop them
      p.record_errors.push_back({e.batch_index, e.message, {}});
    return p;
  }
  ProduceResponse::PartitionProduceResponse p;
  p.index = data.index;
  p.base_offset = result.base_offset.value;
  p.log_append_time_ms = result.log_append_time;
  p.log_start_offset = result.log_start_offset.value;
  if (result.duplicate)  // an idempotent producer's retry: answered with the first offsets, nothing new
    api_log().debug("duplicate batch for {}-{} answered with offset {}", escaped(topic), data.index, p.base_offset);
  else if (services_.fetch_purgatory && services_.fetch_purgatory->has_watchers())  // no key built for nobody
    services_.fetch_purgatory->on_event(partition_key(topic, data.index));
  return p;
}

void ProduceHandler::handle(ApiRequest& request, protocol::ProduceRequest& body, Responder& out) {
  bool any_error = false;
  const bool valid_acks = body.acks == 0 || body.acks == 1 || body.acks == -1;
  auto resp = mirror(body, [&](const std::string& topic, auto& part) {
    ProduceResponse::PartitionProduceResponse p;
    if (!valid_acks)
      p = partition_error(part.index, ErrorCode::kInvalidRequiredAcks);
    else if (body.transactional_id)
      p = partition_error(part.index, ErrorCode::kTransactionalIdAuthorizationFailed,
                          "Skiff does not support transactions yet");
    else
      p = append_partition(topic, part, request.api_version());
    any_error |= p.error_code != 0;
    return p;
  });
  if (body.acks == 0) {
    // The client reads no response, so an error can only be signalled by
    // closing the connection (it then refreshes metadata), as Kafka does.
    if (any_error)
      out.close("acks=0 produce failed");
    else
      out.send_nothing();
    return;
  }
  out.send(resp);
}

ProduceResponse ProduceHandler::error_response(const protocol::ProduceRequest& body, ErrorCode error) {
  auto copy = body;
  return mirror(copy, [&](const std::string&, auto& part) { return partition_error(part.index, error); });
}

}  // namespace skiff::api
