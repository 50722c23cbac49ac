#include "api/handlers/list_offsets_handler.h"

#include "api/authorize.h"
#include "api/broker_info.h"
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

// read_committed (isolation level 1), as Kafka 4.4's fetchOffsetForTimestamp:
// LATEST is the last stable offset; a timestamp lookup (and MAX_TIMESTAMP)
// that lands at or past it answers offset -1; EARLIEST is unchanged.
ListOffsetsResponse::ListOffsetsPartitionResponse lookup(storage::Log& log, int64_t timestamp, bool read_committed) {
  ListOffsetsResponse::ListOffsetsPartitionResponse r;
  r.leader_epoch = kLeaderEpoch;
  const int64_t last_fetchable = read_committed ? log.last_stable_offset().value : log.log_end_offset().value;
  switch (timestamp) {
    case kLatest:
      r.offset = last_fetchable;
      break;
    case kEarliest:
    case kEarliestLocal:
      r.offset = log.log_start_offset().value;
      break;
    case kLatestTiered:
    case kEarliestPendingUpload:
      // No tiered storage: nothing uploaded, nothing waiting to be; Kafka 4.4
      // answers offset -1 (timestamp and epoch -1) without error.
      r.leader_epoch = -1;
      break;
    case kMaxTimestamp: {
      auto found = log.max_timestamp_offset();
      r.offset = found.offset.value;
      r.timestamp = found.timestamp;
      break;
    }
    default: {
      if (timestamp < 0) {
        r.error_code = code(ErrorCode::kInvalidRequest);
        break;
      }
      auto found = log.offset_for_timestamp(timestamp);
      r.offset = found.offset.value;
      r.timestamp = found.offset.value < 0 ? -1 : found.timestamp;
      if (found.offset.value < 0) r.leader_epoch = -1;
    }
  }
  // (Kafka filters read_uncommitted lookups at the high watermark too: every
  // offset found here is below it, so only read_committed needs the check.)
  const bool filtered = read_committed && timestamp != kLatest && timestamp != kEarliest && timestamp != kEarliestLocal;
  if (filtered && r.error_code == 0 && r.offset >= last_fetchable) {
    r.offset = r.timestamp = -1;
    r.leader_epoch = -1;
  }
  return r;
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

}  // namespace

// DESCRIBE on each topic, else TOPIC_AUTHORIZATION_FAILED (KafkaApis.handleListOffsetRequest).
void ListOffsetsHandler::handle(ApiRequest& request, protocol::ListOffsetsRequest& body, Responder& out) {
  const std::string* checked = nullptr;  // the last topic checked: partitions come grouped by topic
  bool allowed = true;
  out.send(mirror(body, [&](const std::string& topic, const auto& part) {
    ListOffsetsResponse::ListOffsetsPartitionResponse r;
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
    else
      r = lookup(*log, part.timestamp, body.isolation_level == 1);
    if (request.api_version() < 4) r.leader_epoch = -1;  // not in the wire format before v4
    return r;
  }));
}

ListOffsetsResponse ListOffsetsHandler::error_response(const protocol::ListOffsetsRequest& body, ErrorCode error) {
  return mirror(body, [&](const std::string&, const auto&) {
    ListOffsetsResponse::ListOffsetsPartitionResponse r;
    r.error_code = code(error);
    return r;
  });
}

}  // namespace skiff::api
