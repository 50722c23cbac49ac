#include "api/fetch_reader.h"

#include <algorithm>
#include <climits>

#include "api/authorize.h"
#include "api/broker_info.h"
#include "api/purgatory.h"
#include "api/topics.h"

namespace skiff::api {
namespace {

using protocol::FetchResponse;

// Kafka's collectAbortedTransactions for the data returned: the aborted
// transactions overlapping [fetch_offset, bound). `bound` (the read's upper
// limit) may exceed the last batch returned, as Kafka's own index-based
// bound may: the consumer only applies entries up to the batches it got.
void add_aborted(const storage::Log& log, int64_t fetch_offset, storage::Offset bound,
                 FetchResponse::PartitionData& pd) {
  for (const auto& t : log.collect_aborted_txns(storage::Offset(fetch_offset), bound)) {
    FetchResponse::AbortedTransaction a;
    a.producer_id = t.producer_id;
    a.first_offset = t.first_offset;
    pd.aborted_transactions->push_back(a);
  }
}

// The partition's log start, high watermark and LSO as `log` has them now.
void set_ends(const storage::Log& log, FetchResponse::PartitionData& pd) {
  pd.high_watermark = log.log_end_offset().value;
  pd.last_stable_offset = log.last_stable_offset().value;
  pd.log_start_offset = log.log_start_offset().value;
}

}  // namespace

FetchReader::FetchReader(BrokerServices& services, const protocol::FetchRequest& request, const ApiRequest& who)
    : max_bytes_(static_cast<size_t>(std::max(0, request.max_bytes))),
      min_bytes_(static_cast<size_t>(std::max(0, request.min_bytes))),
      read_committed_(request.isolation_level == 1) {
  const int16_t version = who.api_version();
  const bool by_id = version >= 13;
  const int32_t replica = version >= 15 ? request.replica_state.replica_id : request.replica_id;
  const bool follower_refused = replica >= 0 && !authorized_cluster(services, who, AclOperation::kClusterAction);
  for (const auto& rt : request.topics) {
    Topic t;
    t.id = rt.topic_id;
    ErrorCode topic_error = ErrorCode::kNone;
    if (by_id) {
      auto info = services.logs.topic_by_id(rt.topic_id);
      if (info)
        t.name = info->name;
      else
        topic_error = ErrorCode::kUnknownTopicId;
    } else {
      t.name = rt.topic;
    }
    if (topic_error == ErrorCode::kNone &&
        (follower_refused || (replica < 0 && !authorized_topic(services, who, AclOperation::kRead, t.name))))
      topic_error = ErrorCode::kTopicAuthorizationFailed;
    for (const auto& rp : rt.partitions) {
      Partition p{rp.partition, rp.fetch_offset, std::max(0, rp.partition_max_bytes), nullptr, topic_error};
      if (p.error == ErrorCode::kNone) {
        p.log = find_log(services, t.name, rp.partition);
        if (!p.log)
          p.error = ErrorCode::kUnknownTopicOrPartition;
        else if (rp.current_leader_epoch > kLeaderEpoch)
          p.error = ErrorCode::kUnknownLeaderEpoch;
        else if (p.fetch_offset < p.log->log_start_offset().value || p.fetch_offset > p.log->log_end_offset().value)
          p.error = ErrorCode::kOffsetOutOfRange;
      }
      has_error_ |= p.error != ErrorCode::kNone;
      t.partitions.push_back(std::move(p));
    }
    topics_.push_back(std::move(t));
  }
}

storage::Offset FetchReader::read_bound(const storage::Log& log) const {
  return read_committed_ ? log.last_stable_offset() : storage::Offset(INT64_MAX);
}

size_t FetchReader::available_bytes() const {
  size_t total = 0;
  for (const auto& t : topics_) {
    for (const auto& p : t.partitions) {
      if (!p.log || p.error != ErrorCode::kNone) continue;
      if (p.log->deleted()) return SIZE_MAX;  // topic deleted: answer now
      const storage::Offset bound = read_bound(*p.log);
      if (p.log->log_end_offset().value <= p.fetch_offset || bound.value <= p.fetch_offset) continue;
      auto r = p.log->read(storage::Offset(p.fetch_offset),
                           std::max<size_t>(1, std::min<size_t>(p.max_bytes, min_bytes_)), bound);
      if (r) total += r->slice.length;
      if (total >= min_bytes_) return total;
    }
  }
  return total;
}

protocol::FetchResponse FetchReader::read() const {
  FetchResponse resp;
  size_t remaining = max_bytes_;
  bool have_data = false;
  for (const auto& t : topics_) {
    FetchResponse::FetchableTopicResponse rt;
    rt.topic = t.name;
    rt.topic_id = t.id;
    for (const auto& p : t.partitions) {
      FetchResponse::PartitionData pd;
      pd.partition_index = p.index;
      pd.records = protocol::Records::bytes({});
      // Kafka's shape: no list for read_uncommitted, an (empty) one for read_committed.
      if (read_committed_)
        pd.aborted_transactions.emplace();
      else
        pd.aborted_transactions = std::nullopt;
      pd.error_code = code(p.error);
      if (p.log && p.log->deleted()) {  // deleted while the fetch waited
        pd.error_code = code(ErrorCode::kUnknownTopicOrPartition);
        pd.high_watermark = pd.last_stable_offset = pd.log_start_offset = -1;
        rt.partitions.push_back(std::move(pd));
        continue;
      }
      if (p.log) {
        set_ends(*p.log, pd);
      } else {
        pd.high_watermark = pd.last_stable_offset = pd.log_start_offset = -1;
      }
      if (p.log && p.error == ErrorCode::kNone) read_partition(p, remaining, have_data, pd);
      rt.partitions.push_back(std::move(pd));
    }
    resp.responses.push_back(std::move(rt));
  }
  return resp;
}

void FetchReader::read_partition(const Partition& p, size_t& remaining, bool& have_data,
                                 FetchResponse::PartitionData& pd) const {
  const size_t limit = std::min<size_t>(p.max_bytes, remaining);
  const storage::Offset bound = read_bound(*p.log);
  auto r = p.log->read(storage::Offset(p.fetch_offset), std::max<size_t>(limit, 1), bound);
  if (!r) {
    pd.error_code = code(to_error_code(r.error()));
    set_ends(*p.log, pd);  // a failed read reports no ends: the log's, read after it
    return;
  }
  const storage::FileSlice& slice = r->slice;
  if (!slice.empty() && (slice.length <= limit || !have_data)) {
    // Only the very first batch of the response may exceed the limits.
    pd.records =
        protocol::Records::file_regions({FileRegion{slice.file->fd(), slice.position, slice.length, slice.file}});
    remaining -= std::min(remaining, slice.length);
    have_data = true;
    if (read_committed_) add_aborted(*p.log, p.fetch_offset, bound, pd);
  }
  pd.high_watermark = r->log_end_offset.value;
  pd.last_stable_offset = r->last_stable_offset.value;
  pd.log_start_offset = r->log_start_offset.value;
}

std::vector<std::string> FetchReader::watch_keys() const {
  std::vector<std::string> keys;
  for (const auto& t : topics_)
    for (const auto& p : t.partitions)
      if (p.log && p.error == ErrorCode::kNone) keys.push_back(partition_key(t.name, p.index));
  return keys;
}

}  // namespace skiff::api
