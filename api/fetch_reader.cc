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
      read_committed_(request.isolation_level == 1),
      remote_enabled_(services.remote_reads != nullptr) {
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
    if (remote_enabled_ && topic_error == ErrorCode::kNone) {
      auto info = services.logs.topic(t.name);
      if (info) t.log_topic_id = info->topic_id;
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

std::vector<RemoteReadRequest> FetchReader::plan_remote_reads() {
  std::vector<RemoteReadRequest> reads;
  if (!remote_enabled_) return reads;
  for (auto& t : topics_) {
    for (auto& p : t.partitions) {
      if (!p.log || p.error != ErrorCode::kNone || p.fetch_offset >= p.log->local_log_start_offset().value) continue;
      p.remote_slot = static_cast<int>(reads.size());
      RemoteReadRequest r;
      r.partition = RemotePartition{t.log_topic_id, t.name, p.index};
      r.fetch_offset = p.fetch_offset;
      r.max_bytes = std::min<size_t>(p.max_bytes, max_bytes_);
      r.min_one_message = true;  // read() keeps it only while the response has no data
      r.read_committed = read_committed_;
      reads.push_back(std::move(r));
    }
  }
  return reads;
}

protocol::FetchResponse FetchReader::read(const RemoteResults* remote) const {
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
      if (p.log && p.error == ErrorCode::kNone) {
        const bool from_remote = remote && p.remote_slot >= 0 && p.remote_slot < static_cast<int>(remote->size());
        if (from_remote && (*remote)[p.remote_slot])
          read_remote_partition(p, *(*remote)[p.remote_slot], remaining, have_data, pd);
        else if (!from_remote)
          read_partition(p, remaining, have_data, pd);
        // else: its remote read is not done (timed out): no records, no error.
      }
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

void FetchReader::read_remote_partition(const Partition& p, const RemoteReadResult& result, size_t& remaining,
                                        bool& have_data, FetchResponse::PartitionData& pd) const {
  if (result.error != ErrorCode::kNone) {
    pd.error_code = code(result.error);
    return;
  }
  const size_t limit = std::min<size_t>(p.max_bytes, remaining);
  if (result.records.empty() || (result.records.size() > limit && have_data)) return;
  pd.records =
      protocol::Records::bytes({reinterpret_cast<const uint8_t*>(result.records.data()), result.records.size()});
  remaining -= std::min(remaining, result.records.size());
  have_data = true;
  if (!read_committed_) return;
  for (const auto& t : result.aborted) {
    FetchResponse::AbortedTransaction a;
    a.producer_id = t.producer_id;
    a.first_offset = t.first_offset;
    pd.aborted_transactions->push_back(a);
  }
  // The remote transaction indexes ended before the data did: the local
  // log's own index holds the rest (Kafka's collectAbortedTransactions).
  if (!result.aborted_complete && result.next_offset > p.log->local_log_start_offset().value)
    add_aborted(*p.log, p.log->local_log_start_offset().value, storage::Offset(result.next_offset), pd);
}

std::vector<std::string> FetchReader::watch_keys() const {
  std::vector<std::string> keys;
  for (const auto& t : topics_)
    for (const auto& p : t.partitions)
      if (p.log && p.error == ErrorCode::kNone) keys.push_back(partition_key(t.name, p.index));
  return keys;
}

}  // namespace skiff::api
