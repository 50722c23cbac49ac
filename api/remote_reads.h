// RemoteReads: how Fetch and ListOffsets reach data that is in remote
// storage only (tiered storage, KIP-405): offsets below a log's local start.
// api/ states what it needs; server/ binds it to the remote log reader
// (remote/reader/), whose pool does the reads, so a handler thread never
// waits on the object store. Absent (BrokerServices::remote_reads null)
// when remote storage is off: reads below the local start then answer
// OFFSET_MOVED_TO_TIERED_STORAGE as the log reports it.
//
// Threads: read() and offset_for_timestamp() from handler threads; `done`
// runs exactly once, on a reader thread or inline (an answer known at once,
// e.g. the remote fetch quota exceeded), unless the call returned false
// (refused now: its queue is full), when it never runs.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/uuid.h"
#include "log/txn_index.h"
#include "protocol/error_codes.h"

namespace skiff::api {

struct RemotePartition {
  Uuid topic_id;
  std::string topic;
  int32_t partition = 0;
};

struct RemoteReadRequest {
  RemotePartition partition;
  int64_t fetch_offset = 0;
  size_t max_bytes = 0;          // the partition's limit in this response
  bool min_one_message = false;  // the first batch whole even over max_bytes (KIP-74)
  bool read_committed = false;   // collect the aborted transactions overlapping the data
};

struct RemoteReadResult {
  // KAFKA_STORAGE_ERROR when the store failed (clients retry), OFFSET_OUT_OF_RANGE
  // when no remote segment holds the offset (its data expired meanwhile).
  ErrorCode error = ErrorCode::kNone;
  std::string records;  // whole batches from the one holding the fetch offset
  std::vector<storage::AbortedTxn> aborted;
  // False: the remote transaction indexes ended below next_offset; the rest
  // is the local log's, from its local start.
  bool aborted_complete = true;
  int64_t next_offset = -1;  // after the last record returned
};

struct RemoteOffsetResult {
  ErrorCode error = ErrorCode::kNone;
  // The first record with a timestamp >= the one asked, in remote storage; none: look locally.
  std::optional<std::pair<int64_t, int64_t>> timestamp_and_offset;
};

class RemoteReads {
 public:
  virtual ~RemoteReads() = default;
  virtual bool read(RemoteReadRequest request, std::function<void(RemoteReadResult)> done) = 0;
  // Kafka's findOffsetByTimestamp over the remote segments holding offsets >= start_offset.
  virtual bool offset_for_timestamp(RemotePartition partition, int64_t timestamp, int64_t start_offset,
                                    std::function<void(RemoteOffsetResult)> done) = 0;
  // remote.fetch.max.wait.ms: the longest a fetch waits for its remote reads.
  virtual std::chrono::milliseconds fetch_max_wait() const = 0;
  // remote.list.offsets.request.timeout.ms: the longest a ListOffsets waits.
  virtual std::chrono::milliseconds list_offsets_timeout() const = 0;
};

}  // namespace skiff::api
