#include "api/handlers/offset_for_leader_epoch_handler.h"

#include "api/authorize.h"
#include "api/broker_info.h"
#include "api/topics.h"

namespace skiff::api {
namespace {

using protocol::OffsetForLeaderEpochResponse;

template <class PerPartition>
OffsetForLeaderEpochResponse mirror(const protocol::OffsetForLeaderEpochRequest& body, PerPartition&& answer) {
  OffsetForLeaderEpochResponse resp;
  for (const auto& topic : body.topics) {
    OffsetForLeaderEpochResponse::OffsetForLeaderTopicResult t;
    t.topic = topic.topic;
    for (const auto& part : topic.partitions) {
      OffsetForLeaderEpochResponse::EpochEndOffset r = answer(topic.topic, part);
      r.partition = part.partition;
      t.partitions.push_back(std::move(r));
    }
    resp.topics.push_back(std::move(t));
  }
  return resp;
}

}  // namespace

// A follower (replica id >= 0): CLUSTER_ACTION on the cluster, else every
// partition CLUSTER_AUTHORIZATION_FAILED; a consumer: DESCRIBE on each topic,
// else TOPIC_AUTHORIZATION_FAILED (KafkaApis.handleOffsetForLeaderEpochRequest).
void OffsetForLeaderEpochHandler::handle(ApiRequest& request, protocol::OffsetForLeaderEpochRequest& body,
                                         Responder& out) {
  const bool follower = request.api_version() >= 3 && body.replica_id >= 0;
  if (follower && !authorized_cluster(services_, request, AclOperation::kClusterAction)) {
    out.send(error_response(body, ErrorCode::kClusterAuthorizationFailed));
    return;
  }
  out.send(mirror(body, [&](const std::string& topic, const auto& part) {
    OffsetForLeaderEpochResponse::EpochEndOffset r;
    if (!follower && !authorized_topic(services_, request, AclOperation::kDescribe, topic)) {
      r.error_code = code(ErrorCode::kTopicAuthorizationFailed);
      return r;
    }
    auto log = find_log(services_, topic, part.partition);
    if (!log) {
      r.error_code = code(ErrorCode::kUnknownTopicOrPartition);
    } else if (part.current_leader_epoch > kLeaderEpoch) {
      r.error_code = code(ErrorCode::kUnknownLeaderEpoch);
    } else if (part.leader_epoch <= kLeaderEpoch) {
      r.leader_epoch = kLeaderEpoch;
      r.end_offset = log->log_end_offset().value;
    }  // else: an epoch this node never had: undefined (-1, -1), as Kafka answers
    return r;
  }));
}

OffsetForLeaderEpochResponse OffsetForLeaderEpochHandler::error_response(
    const protocol::OffsetForLeaderEpochRequest& body, ErrorCode error) {
  return mirror(body, [&](const std::string&, const auto&) {
    OffsetForLeaderEpochResponse::EpochEndOffset r;
    r.error_code = code(error);
    return r;
  });
}

}  // namespace skiff::api
