#include "api/handlers/delete_records_handler.h"

#include "api/api_log.h"
#include "api/authorize.h"
#include "api/topics.h"

namespace skiff::api {
namespace {

using protocol::DeleteRecordsResponse;
using DeletedPartition = DeleteRecordsResponse::DeleteRecordsPartitionResult;

template <class PerPartition>
DeleteRecordsResponse mirror(const protocol::DeleteRecordsRequest& body, PerPartition&& answer) {
  DeleteRecordsResponse resp;
  for (const auto& t : body.topics) {
    DeleteRecordsResponse::DeleteRecordsTopicResult tr;
    tr.name = t.name;
    for (const auto& p : t.partitions) {
      DeletedPartition r = answer(t.name, p);
      r.partition_index = p.partition_index;
      tr.partitions.push_back(r);
    }
    resp.topics.push_back(std::move(tr));
  }
  return resp;
}

DeletedPartition delete_failed(ErrorCode e) {
  DeletedPartition r;
  r.error_code = code(e);
  r.low_watermark = -1;
  return r;
}

}  // namespace

// DELETE on each topic, else TOPIC_AUTHORIZATION_FAILED (KafkaApis.handleDeleteRecordsRequest).
void DeleteRecordsHandler::handle(ApiRequest& request, protocol::DeleteRecordsRequest& body, Responder& out) {
  bool moved = false;
  auto resp = mirror(body, [&](const std::string& topic, const auto& p) -> DeletedPartition {
    if (!authorized_topic(services_, request, AclOperation::kDelete, topic))
      return delete_failed(ErrorCode::kTopicAuthorizationFailed);
    // Kafka 4.4 (ReplicaManager.deleteRecordsOnLocalLog): never on an internal topic.
    if (is_internal_topic(topic)) return delete_failed(ErrorCode::kInvalidTopicException);
    auto log = find_log(services_, topic, p.partition_index);
    if (!log) return delete_failed(ErrorCode::kUnknownTopicOrPartition);
    const int64_t target = p.offset == -1 ? log->log_end_offset().value : p.offset;
    if (target < 0) return delete_failed(ErrorCode::kOffsetOutOfRange);
    if (auto moved_start = log->maybe_increment_log_start_offset(storage::Offset(target)); !moved_start)
      return delete_failed(to_error_code(moved_start.error()));
    moved = true;
    DeletedPartition r;
    r.low_watermark = log->log_start_offset().value;
    return r;
  });
  // The new start must survive a crash: checkpoint it before answering.
  if (moved) services_.logs.checkpoint_log_start_offsets();
  out.send(resp);
}

DeleteRecordsResponse DeleteRecordsHandler::error_response(const protocol::DeleteRecordsRequest& body,
                                                           ErrorCode error) {
  return mirror(body, [&](const std::string&, const auto&) { return delete_failed(error); });
}

}  // namespace skiff::api
