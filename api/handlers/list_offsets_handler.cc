#include "api/handlers/list_offsets_handler.h"

#include <atomic>
#include <mutex>

#include "api/authorize.h"
#include "api/broker_info.h"
#include "api/purgatory.h"
#include "api/remote_reads.h"
#include "api/topics.h"

namespace skiff::api {
namespace {

using protocol::ListOffsetsResponse;

constexpr int64_t kLatest = -1;
constexpr int64_t kEarliest = -2;
constexpr int64_t kMaxTimestamp = -3;
constexpr int64_t kEarliestLocal = -4;
constexpr int64_t kLatestTiered = -5;
constexpr int64_t kEarliestPendingUpload = -6;

// Kafka 4.4's ReplicaManager.isListOffsetsTimestampUnsupported: each special
// timestamp from the version that introduced it (MAX_TIMESTAMP v7, KIP-734;
// EARLIEST_LOCAL v8 and LATEST_TIERED v9, KIP-405/1005; EARLIEST_PENDING_UPLOAD
// v11, KIP-1023); any other negative timestamp is UNSUPPORTED_VERSION.
bool timestamp_unsupported(int64_t timestamp, int16_t version) {
  switch (timestamp) {
    case kLatest:
    case kEarliest:
      return false;
    case kMaxTimestamp:
      return version < 7;
    case kEarliestLocal:
      return version < 8;
    case kLatestTiered:
      return version < 9;
    case kEarliestPendingUpload:
      return version < 11;
    default:
      return timestamp < 0;
  }
}

using PartitionResponse = ListOffsetsResponse::ListOffsetsPartitionResponse;

void set_none(PartitionResponse& r) {
  r.offset = r.timestamp = -1;
  r.leader_epoch = -1;
}

// LATEST_TIERED (-5): the highest offset in remote storage (-1, epoch -1,
// when nothing is or the topic is not tiered), as Kafka 4.4's UnifiedLog.
void latest_tiered(const storage::Log& log, PartitionResponse& r) {
  r.offset = log.config()->remote_storage_enable ? log.highest_offset_in_remote() : -1;
  if (r.offset < 0) set_none(r);
}

// EARLIEST_PENDING_UPLOAD (-6): the first offset not yet in remote storage
// (Kafka 4.4's fetchEarliestPendingUploadOffset).
void earliest_pending_upload(const storage::Log& log, PartitionResponse& r) {
  if (!log.config()->remote_storage_enable) return set_none(r);
  const int64_t highest = log.highest_offset_in_remote();
  const int64_t start = log.log_start_offset().value;
  if (highest >= 0)
    r.offset = std::max(highest + 1, start);
  else if (log.local_log_start_offset().value == start)
    r.offset = start;  // nothing uploaded yet
  else
    set_none(r);  // uploaded, but not known yet (the metadata is replaying)
}

// By timestamp in the local segments (and in remote storage's, through
// lookup_remote, when the log has data there).
void by_timestamp(const storage::Log& log, int64_t timestamp, PartitionResponse& r) {
  if (timestamp < 0) {
    r.error_code = code(ErrorCode::kInvalidRequest);
    return;
  }
  auto found = log.offset_for_timestamp(timestamp);
  r.offset = found.offset.value;
  r.timestamp = found.offset.value < 0 ? -1 : found.timestamp;
  if (found.offset.value < 0) r.leader_epoch = -1;
}

// read_committed (isolation level 1), as Kafka 4.4's fetchOffsetForTimestamp:
// LATEST is the last stable offset; a timestamp lookup (and MAX_TIMESTAMP)
// that lands at or past it answers offset -1; EARLIEST is unchanged.
// (Kafka filters read_uncommitted lookups at the high watermark too: every
// offset found here is below it, so only read_committed needs the check.)
void filter_committed(const storage::Log& log, int64_t timestamp, bool read_committed, PartitionResponse& r) {
  const bool filtered = read_committed && timestamp != kLatest && timestamp != kEarliest && timestamp != kEarliestLocal;
  if (filtered && r.error_code == 0 && r.offset >= log.last_stable_offset().value) set_none(r);
}

PartitionResponse lookup(storage::Log& log, int64_t timestamp, bool read_committed) {
  PartitionResponse r;
  r.leader_epoch = kLeaderEpoch;
  switch (timestamp) {
    case kLatest:
      r.offset = read_committed ? log.last_stable_offset().value : log.log_end_offset().value;
      break;
    case kEarliest:
      r.offset = log.log_start_offset().value;
      break;
    case kEarliestLocal:
      r.offset = log.local_log_start_offset().value;
      break;
    case kLatestTiered:
      latest_tiered(log, r);
      break;
    case kEarliestPendingUpload:
      earliest_pending_upload(log, r);
      break;
    case kMaxTimestamp: {
      auto found = log.max_timestamp_offset();
      r.offset = found.offset.value;
      r.timestamp = found.timestamp;
      break;
    }
    default:
      by_timestamp(log, timestamp, r);
  }
  filter_committed(log, timestamp, read_committed, r);
  return r;
}

// A timestamp lookup that must ask remote storage first (Kafka's
// asyncOffsetRead): the topic is tiered and data is below the local start.
bool needs_remote(const BrokerServices& services, const storage::Log& log, int64_t timestamp) {
  return services.remote_reads && timestamp >= 0 && log.config()->remote_storage_enable &&
         log.log_start_offset().value < log.local_log_start_offset().value;
}

// The response mirrors the request: one entry per requested partition.
template <class PerPartition>
ListOffsetsResponse mirror(const protocol::ListOffsetsRequest& body, PerPartition&& answer) {
  ListOffsetsResponse resp;
  for (const auto& topic : body.topics) {
    ListOffsetsResponse::ListOffsetsTopicResponse t;
    t.name = topic.name;
    for (const auto& part : topic.partitions) {
      ListOffsetsResponse::ListOffsetsPartitionResponse r = answer(topic.name, part);
      r.partition_index = part.partition_index;
      t.partitions.push_back(std::move(r));
    }
    resp.topics.push_back(std::move(t));
  }
  return resp;
}

// A timestamp lookup waiting for remote storage: where its answer goes.
struct RemoteLookup {
  size_t seq;  // the partition's place in the response, in request order
  std::shared_ptr<storage::Log> log;
  RemotePartition partition;
  int64_t timestamp;
};

// A ListOffsets whose timestamp lookups read remote storage (Kafka's
// DelayedRemoteListOffsets): answered once every lookup is done, or at
// remote.list.offsets.request.timeout.ms with REQUEST_TIMED_OUT for those
// that are not. A remote result of "none" falls back to the local segments.
class DelayedListOffsets : public DelayedOperation {
 public:
  DelayedListOffsets(ListOffsetsResponse resp, Responder out, std::vector<RemoteLookup> lookups, bool read_committed)
      : resp_(std::move(resp)),
        out_(std::move(out)),
        lookups_(std::move(lookups)),
        done_(lookups_.size(), false),
        pending_(lookups_.size()),
        read_committed_(read_committed) {
    for (auto& t : resp_.topics)
      for (auto& p : t.partitions) slots_.push_back(&p);
  }

  // Lookup `i`'s result (any thread).
  void arrived(size_t i, const RemoteOffsetResult& result) {
    {
      std::lock_guard lock(mu_);
      if (answered_) return;
      fill(lookups_[i], result, *slots_[lookups_[i].seq]);
      done_[i] = true;
    }
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) try_complete();
  }

 protected:
  bool ready() override { return pending_.load(std::memory_order_acquire) == 0; }
  void complete() override {
    {
      std::lock_guard lock(mu_);
      answered_ = true;  // resp_ is written no more
      for (size_t i = 0; i < lookups_.size(); ++i) {
        if (done_[i]) continue;
        PartitionResponse& r = *slots_[lookups_[i].seq];
        set_none(r);
        r.error_code = code(ErrorCode::kRequestTimedOut);
      }
    }
    out_.send(resp_);
  }

 private:
  void fill(const RemoteLookup& l, const RemoteOffsetResult& result, PartitionResponse& r) const {
    if (result.error != ErrorCode::kNone) {
      set_none(r);
      r.error_code = code(result.error);
      return;
    }
    if (result.timestamp_and_offset) {
      r.timestamp = result.timestamp_and_offset->first;
      r.offset = result.timestamp_and_offset->second;
    } else {
      by_timestamp(*l.log, l.timestamp, r);  // not in remote storage: the local segments
    }
    filter_committed(*l.log, l.timestamp, read_committed_, r);
    if (out_.api_version() < 4) r.leader_epoch = -1;
  }

  ListOffsetsResponse resp_;
  Responder out_;
  const std::vector<RemoteLookup> lookups_;
  std::mutex mu_;  // leaf: guards resp_, done_, answered_
  std::vector<PartitionResponse*> slots_;
  std::vector<bool> done_;
  bool answered_ = false;
  std::atomic<size_t> pending_;
  const bool read_committed_;
};

Uuid topic_id(const BrokerServices& services, const std::string& topic) {
  auto info = services.logs.topic(topic);
  return info ? info->topic_id : Uuid{};
}

void lookup_remote(BrokerServices& services, ListOffsetsResponse resp, std::vector<RemoteLookup> lookups,
                   bool read_committed, Responder out) {
  std::vector<RemoteLookup> asked = lookups;  // (the operation keeps its own)
  auto op = std::make_shared<DelayedListOffsets>(std::move(resp), std::move(out), std::move(lookups), read_committed);
  for (size_t i = 0; i < asked.size(); ++i) {
    auto& l = asked[i];
    const int64_t start = l.log->log_start_offset().value;
    bool queued = services.remote_reads->offset_for_timestamp(l.partition, l.timestamp, start,
                                                              [op, i](RemoteOffsetResult r) { op->arrived(i, r); });
    if (!queued) {
      RemoteOffsetResult refused;
      refused.error = ErrorCode::kKafkaStorageError;
      op->arrived(i, refused);
    }
  }
  services.fetch_purgatory->add(std::move(op), {}, services.remote_reads->list_offsets_timeout());
}

}  // namespace

// DESCRIBE on each topic, else TOPIC_AUTHORIZATION_FAILED (KafkaApis.handleListOffsetRequest).
void ListOffsetsHandler::handle(ApiRequest& request, protocol::ListOffsetsRequest& body, Responder& out) {
  const std::string* checked = nullptr;  // the last topic checked: partitions come grouped by topic
  bool allowed = true;
  size_t seq = 0;
  std::vector<RemoteLookup> remote;
  auto resp = mirror(body, [&](const std::string& topic, const auto& part) {
    ListOffsetsResponse::ListOffsetsPartitionResponse r;
    const size_t at = seq++;
    if (checked != &topic) {
      checked = &topic;
      allowed = authorized_topic(services_, request, AclOperation::kDescribe, topic);
    }
    if (!allowed) {
      r.error_code = code(ErrorCode::kTopicAuthorizationFailed);
      if (request.api_version() < 4) r.leader_epoch = -1;
      return r;
    }
    auto log = find_log(services_, topic, part.partition_index);
    if (timestamp_unsupported(part.timestamp, request.api_version()))
      r.error_code = code(ErrorCode::kUnsupportedVersion);
    else if (!log)
      r.error_code = code(ErrorCode::kUnknownTopicOrPartition);
    else if (part.current_leader_epoch > kLeaderEpoch)
      r.error_code = code(ErrorCode::kUnknownLeaderEpoch);
    else if (needs_remote(services_, *log, part.timestamp))
      remote.push_back({at, log, {topic_id(services_, topic), topic, part.partition_index}, part.timestamp});
    else
      r = lookup(*log, part.timestamp, body.isolation_level == 1);
    if (request.api_version() < 4) r.leader_epoch = -1;  // not in the wire format before v4
    return r;
  });
  if (remote.empty() || !services_.fetch_purgatory) {
    out.send(resp);
    return;
  }
  lookup_remote(services_, std::move(resp), std::move(remote), body.isolation_level == 1, std::move(out));
}

ListOffsetsResponse ListOffsetsHandler::error_response(const protocol::ListOffsetsRequest& body, ErrorCode error) {
  return mirror(body, [&](const std::string&, const auto&) {
    ListOffsetsResponse::ListOffsetsPartitionResponse r;
    r.error_code = code(error);
    return r;
  });
}

}  // namespace skiff::api
