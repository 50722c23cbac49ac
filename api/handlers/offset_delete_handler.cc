#include "api/handlers/offset_delete_handler.h"

#include "api/authorize.h"
#include "coordinator/group/group_coordinator.h"

namespace skiff::api {

// DELETE on the group, else GROUP_AUTHORIZATION_FAILED; READ on each topic,
// else TOPIC_AUTHORIZATION_FAILED for its partitions (KafkaApis.handleDeleteOffsetsRequest).
void OffsetDeleteHandler::handle(ApiRequest& request, protocol::OffsetDeleteRequest& body, Responder& out) {
  if (!authorized_group(services_, request, AclOperation::kDelete, body.group_id)) {
    out.send(error_response(body, ErrorCode::kGroupAuthorizationFailed));
    return;
  }
  protocol::OffsetDeleteResponse resp;
  std::vector<group::TopicPartition> known;
  std::vector<int16_t*> slots;
  for (const auto& topic : body.topics) {
    const bool allowed = authorized_topic(services_, request, AclOperation::kRead, topic.name);
    auto info = allowed ? services_.logs.topic(topic.name) : std::nullopt;
    auto& t = resp.topics.emplace_back();
    t.name = topic.name;
    t.partitions.reserve(topic.partitions.size());
    for (const auto& part : topic.partitions) {
      auto& r = t.partitions.emplace_back();
      r.partition_index = part.partition_index;
      if (!allowed) {
        r.error_code = code(ErrorCode::kTopicAuthorizationFailed);
        continue;
      }
      if (!info || part.partition_index < 0 || part.partition_index >= info->partitions) {
        r.error_code = code(ErrorCode::kUnknownTopicOrPartition);
        continue;
      }
      known.push_back({topic.name, part.partition_index});
      slots.push_back(&r.error_code);
    }
  }
  auto r = services_.groups->delete_offsets(body.group_id, known);
  if (r.error != ErrorCode::kNone) {
    out.send(error_response(body, r.error));
    return;
  }
  for (size_t i = 0; i < slots.size(); ++i) *slots[i] = code(r.partitions[i]);
  out.send(resp);
}

protocol::OffsetDeleteResponse OffsetDeleteHandler::error_response(const protocol::OffsetDeleteRequest&,
                                                                   ErrorCode error) {
  protocol::OffsetDeleteResponse resp;
  resp.error_code = code(error);
  return resp;
}

}  // namespace skiff::api
