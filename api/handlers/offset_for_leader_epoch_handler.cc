#include "api/handlers/offset_for_leader_epoch_handler.h"

#include "api/topics.h"

namespace skiff::api {
namespace {

using protocol::OffsetForLeaderEpochResponse;
constexpr int32_t kLeaderEpoch = 0;

}  // namespace

void OffsetForLeaderEpochHandler::handle(ApiRequest&, protocol::OffsetForLeaderEpochRequest& body, Responder& out) {
  OffsetForLeaderEpochResponse resp;
  for (const auto& topic : body.topics) {
    OffsetForLeaderEpochResponse::OffsetForLeaderTopicResult t;
    t.topic = topic.topic;
    for (const auto& part : topic.partitions) {
      OffsetForLeaderEpochResponse::EpochEndOffset r;
      r.partition = part.partition;
      auto log = find_log(services_, topic.topic, part.partition);
      if (!log) {
        r.error_code = code(ErrorCode::kUnknownTopicOrPartition);
      } else if (part.current_leader_epoch > kLeaderEpoch) {
        r.error_code = code(ErrorCode::kUnknownLeaderEpoch);
      } else if (part.leader_epoch > kLeaderEpoch) {
        // An epoch this node never had: undefined (-1, -1), as Kafka answers.
      } else {
        r.leader_epoch = kLeaderEpoch;
        r.end_offset = log->log_end_offset().value;
      }
      t.partitions.push_back(std::move(r));
    }
    resp.topics.push_back(std::move(t));
  }
  out.send(resp);
}

OffsetForLeaderEpochResponse OffsetForLeaderEpochHandler::error_response(
    const protocol::OffsetForLeaderEpochRequest& body, ErrorCode error) {
  OffsetForLeaderEpochResponse resp;
  for (const auto& topic : body.topics) {
    OffsetForLeaderEpochResponse::OffsetForLeaderTopicResult t;
    t.topic = topic.topic;
    for (const auto& part : topic.partitions) {
      OffsetForLeaderEpochResponse::EpochEndOffset r;
      r.partition = part.partition;
      r.error_code = code(error);
      t.partitions.push_back(std::move(r));
    }
    resp.topics.push_back(std::move(t));
  }
  return resp;
}

}  // namespace skiff::api
