#include "client/records.h"

#include <algorithm>
#include <span>

#include "log/batch_builder.h"
#include "log/cleaner_batch.h"
#include "log/control_batch.h"

namespace skiff::client {

protocol::MetadataRequest metadata_request(const std::vector<std::string>* only) {
  protocol::MetadataRequest req;
  req.allow_auto_topic_creation = false;
  if (only) {
    std::vector<protocol::MetadataRequest::MetadataRequestTopic> topics;
    for (const auto& name : *only) topics.emplace_back().name = name;
    req.topics = std::move(topics);
  } else {
    req.topics = std::nullopt;  // every topic
  }
  return req;
}
namespace {

constexpr size_t kMaxDecompressed = 64u << 20;

std::string text(std::span<const uint8_t> bytes) { return {reinterpret_cast<const char*>(bytes.data()), bytes.size()}; }

}  // namespace

PartitionRecords::PartitionRecords(int32_t partition, const protocol::FetchResponse::PartitionData& data)
    : partition_(partition) {
  if (data.aborted_transactions)
    for (const auto& a : *data.aborted_transactions) aborted_.emplace(a.first_offset, a.producer_id);
  const auto span = data.records.data();
  bytes_.assign(span.begin(), span.end());
}

void PartitionRecords::for_each(int64_t from, const std::function<void(Record)>& f) {
  storage::BatchIterator batches(bytes_);
  storage::RecordBatchView batch;
  while (batches.next(batch)) {
    next_offset_ = std::max(next_offset_, batch.next_offset());
    if (!visible(batch)) continue;
    auto plain = storage::uncompressed_copy(batch, kMaxDecompressed);
    if (plain.empty()) continue;
    storage::RecordBatchView view(plain);
    storage::RecordIterator records(view);
    storage::RecordView r;
    while (records.next(r))
      if (r.offset(view) >= from) f(to_record(view, r));
  }
}

// read_committed: an aborted transaction's batches are skipped until its marker.
bool PartitionRecords::visible(const storage::RecordBatchView& batch) {
  while (!aborted_.empty() && aborted_.begin()->first <= batch.base_offset()) {
    open_aborts_.insert(aborted_.begin()->second);
    aborted_.erase(aborted_.begin());
  }
  if (batch.is_control()) {
    open_aborts_.erase(batch.producer_id());
    return false;
  }
  return !(batch.is_transactional() && open_aborts_.count(batch.producer_id()));
}

Record PartitionRecords::to_record(const storage::RecordBatchView& view, const storage::RecordView& r) const {
  Record m{partition_,
           r.offset(view),
           r.timestamp(view),
           view.timestamp_type() == storage::TimestampType::kLogAppendTime,
           {},
           {},
           {}};
  if (r.key) m.key = text(*r.key);
  if (r.value) m.value = text(*r.value);
  storage::HeaderIterator headers(r);
  storage::RecordHeaderView h;
  while (headers.next(h))
    m.headers.emplace_back(text(h.key), h.value ? std::optional<std::string>(text(*h.value)) : std::nullopt);
  return m;
}

std::vector<uint8_t> encode_record_batch(ProducerRecord record) {
  storage::BuilderRecord r;
  r.key = std::move(record.key);
  r.value = std::move(record.value);
  r.timestamp = record.timestamp;
  r.headers = std::move(record.headers);
  return storage::BatchBuilder().add(std::move(r)).build();
}

std::vector<uint8_t> encode_record_batch(std::vector<ProducerRecord> records) {
  storage::BatchBuilder builder;
  for (auto& record : records) {
    storage::BuilderRecord r;
    r.key = std::move(record.key);
    r.value = std::move(record.value);
    r.timestamp = record.timestamp;
    r.headers = std::move(record.headers);
    builder.add(std::move(r));
  }
  return builder.build();
}

}  // namespace skiff::client
