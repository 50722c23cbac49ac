// What ShareFetch and ShareAcknowledge share (KIP-932): reading a partition's
// log for a share fetch (the batch headers SharePartition acquires from, and
// the zero-copy file region answered), Kafka's checks of acknowledgement
// batches, the purgatory keys share fetches wait on, and the acknowledgement
// of a request's partitions through the SharePartitionManager.
//
// Threads: stateless functions, any thread.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "api/api_request.h"
#include "api/broker_services.h"
#include "api/purgatory.h"
#include "log/log.h"
#include "protocol/records.h"
#include "share/share_partition_manager.h"

namespace skiff::api::share_api {

// One partition's read for a share fetch from `offset`: whole batches of up
// to max_bytes (the first whole even if larger), below the LSO when
// read_committed; their headers in order; the aborted transactions overlapping
// them (read_committed).
struct Read {
  ErrorCode error = ErrorCode::kNone;
  storage::FileSlice slice;
  std::vector<share::FetchedBatch> batches;
  std::vector<uint64_t> positions;  // of each batch in slice.file
  std::vector<uint32_t> sizes;
  std::vector<share::AbortedTransaction> aborted;
};
Read read(const storage::Log& log, int64_t offset, size_t max_bytes, bool read_committed);

// Bytes a fetch at `offset` would get now (up to `want`).
size_t available_bytes(const storage::Log& log, int64_t offset, size_t want, bool read_committed);

// The whole batches of `r` that hold the acquired ranges, as one file region
// (Kafka's maybeSliceFetchRecords).
protocol::Records records_for(const Read& r, const std::vector<share::AcquiredRecords>& acquired);

// Kafka's validateAcknowledgementBatches for one partition: ordered,
// non-empty ranges, one type per offset or one for the range, types 0..3
// (0..4 from v2, and 4 only in a renew request).
bool valid_acknowledgements(const std::vector<share::AcknowledgementBatch>& batches, bool supports_renew,
                            bool is_renew_ack);

// The purgatory key a share fetch of (group, partition) waits on besides the
// partition's own key (appends): woken when records of the share partition
// may have become acquirable (released, expired, loaded).
std::string share_key(const std::string& group_id, const share::TopicIdPartition& tp);
// The manager's on_acquirable port over `p` (the integrator wires it).
std::function<void(const std::string&, const share::TopicIdPartition&)> share_fetch_waker(Purgatory* p);

// A request's acknowledgements of one partition.
struct PartitionAcks {
  share::TopicIdPartition tp;
  std::vector<share::AcknowledgementBatch> batches;
};
using AckResults = std::vector<std::pair<share::TopicIdPartition, share::ShareResult>>;

// Kafka's handleAcknowledgements: invalid batches answer INVALID_REQUEST,
// unauthorized topics TOPIC_AUTHORIZATION_FAILED, unknown ones
// UNKNOWN_TOPIC_OR_PARTITION, empty lists NONE; the rest go to the manager.
// done runs once every partition has its answer (maybe on another thread).
void acknowledge(BrokerServices& services, const ApiRequest& request, share::SharePartitionManager& shares,
                 const std::string& group_id, const std::string& member_id, std::vector<PartitionAcks> acks,
                 bool supports_renew, bool is_renew_ack, std::function<void(AckResults)> done);

// Kafka's default message of INVALID_REQUEST.
inline constexpr const char* kInvalidRequestMessage = share::kInvalidRequestDefault;

}  // namespace skiff::api::share_api
