// Records as a client reads and writes them, over the record-batch format of
// log/ (Kafka's v2 batches): PartitionRecords walks the records of one
// fetched partition as a read_committed consumer sees them (aborted
// transactions' batches and control batches left out, compressed batches
// decompressed), and encode_record_batch builds the batch of one produce.
// HTTP apps use these instead of log/ (docs/architecture.md).
//
// Threads: a PartitionRecords is used by one thread; encode_record_batch is
// a pure function.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "protocol/generated/fetch_response.h"
#include "protocol/generated/metadata_request.h"

namespace skiff::storage {
class RecordBatchView;
struct RecordView;
}  // namespace skiff::storage

namespace skiff::client {

// A Metadata request (no auto-creation) for the topics named, or for every
// topic when `only` is null.
protocol::MetadataRequest metadata_request(const std::vector<std::string>* only);

struct Record {
  int32_t partition = 0;
  int64_t offset = 0;
  int64_t timestamp = 0;
  bool log_append_time = false;
  std::optional<std::string> key, value;
  std::vector<std::pair<std::string, std::optional<std::string>>> headers;
};

// The records of one fetched partition, aborted transactions' left out.
class PartitionRecords {
 public:
  PartitionRecords(int32_t partition, const protocol::FetchResponse::PartitionData& data);

  // Calls f(record) for each visible record at or after `from`, in order.
  void for_each(int64_t from, const std::function<void(Record)>& f);
  // The offset after the last batch read (visible or not).
  int64_t next_offset() const { return next_offset_; }

 private:
  bool visible(const storage::RecordBatchView& batch);
  Record to_record(const storage::RecordBatchView& view, const storage::RecordView& r) const;

  int32_t partition_;
  std::vector<uint8_t> bytes_;
  std::multimap<int64_t, int64_t> aborted_;  // first offset -> producer id
  std::set<int64_t> open_aborts_;
  int64_t next_offset_ = 0;
};

// One record to produce.
struct ProducerRecord {
  std::optional<std::string> key, value;
  std::vector<std::pair<std::string, std::optional<std::string>>> headers;
  int64_t timestamp = 0;  // CreateTime, ms
};

// The v2 record batch (uncompressed, not idempotent) holding `record`.
std::vector<uint8_t> encode_record_batch(ProducerRecord record);
// One batch holding `records` in order (a produce sends one batch per partition).
std::vector<uint8_t> encode_record_batch(std::vector<ProducerRecord> records);

}  // namespace skiff::client
