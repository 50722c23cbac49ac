#include "api/handlers/offset_commit_handler.h"

#include <chrono>

#include "api/authorize.h"
#include "api/group/group_coordinator.h"
#include "api/topics.h"
#include "common/wall_clock.h"

namespace skiff::api {
namespace {

using protocol::OffsetCommitRequest;
using protocol::OffsetCommitResponse;

}  // namespace

// READ on the group, else GROUP_AUTHORIZATION_FAILED for everything; READ on
// each topic, else TOPIC_AUTHORIZATION_FAILED (checked before existence for a
// topic named, after resolving one given by id), as KafkaApis.
void OffsetCommitHandler::handle(ApiRequest& request, OffsetCommitRequest& body, Responder& out) {
  if (!authorized_group(services_, request, AclOperation::kRead, body.group_id)) {
    out.send(error_response(body, ErrorCode::kGroupAuthorizationFailed));
    return;
  }
  const auto version = request.api_version();
  const int64_t now = wall_clock_ms();
  group::OffsetCommitParams p;
  p.group_id = body.group_id;
  p.generation_id = body.generation_id_or_member_epoch;
  p.member_id = body.member_id;
  p.group_instance_id = body.group_instance_id;
  p.api_version = version;

  OffsetCommitResponse resp;
  std::vector<int16_t*> slots;  // where each committed offset's error goes
  for (const auto& topic : body.topics) {
    auto& t = resp.topics.emplace_back();
    t.name = topic.name;
    t.topic_id = topic.topic_id;
    // v10 names topics by id (KIP-848); before, an unknown name is found out per partition.
    auto [topic_error, info] = find_topic_by_name_or_id(services_, topic.name, topic.topic_id, version >= 10);
    if ((info || version < 10) &&
        !authorized_topic(services_, request, AclOperation::kRead, info ? info->name : topic.name)) {
      topic_error = ErrorCode::kTopicAuthorizationFailed;
      info.reset();
    }
    t.partitions.reserve(topic.partitions.size());
    for (const auto& part : topic.partitions) {
      auto& r = t.partitions.emplace_back();
      r.partition_index = part.partition_index;
      if (!info) {
        r.error_code = code(topic_error);
        continue;
      }
      if (part.partition_index < 0 || part.partition_index >= info->partitions) {
        r.error_code = code(ErrorCode::kUnknownTopicOrPartition);
        continue;
      }
      group::OffsetAndMetadata o;
      o.offset = part.committed_offset;
      o.leader_epoch = version >= 6 ? part.committed_leader_epoch : -1;
      o.metadata = part.committed_metadata.value_or("");
      o.commit_timestamp = now;
      if (version <= 4 && body.retention_time_ms >= 0) o.expire_timestamp = now + body.retention_time_ms;
      p.offsets.emplace_back(group::TopicPartition{info->name, part.partition_index}, std::move(o));
      p.topic_ids.push_back(info->topic_id);  // Kafka resolves names to ids for the assignment-epoch check
      slots.push_back(&r.error_code);
    }
  }
  if (!p.offsets.empty()) {
    auto errors = services_.groups->commit_offsets(p);
    for (size_t i = 0; i < slots.size(); ++i) *slots[i] = code(errors[i]);
  }
  out.send(resp);
}

OffsetCommitResponse OffsetCommitHandler::error_response(const OffsetCommitRequest& body, ErrorCode error) {
  OffsetCommitResponse resp;
  for (const auto& topic : body.topics) {
    auto& t = resp.topics.emplace_back();
    t.name = topic.name;
    t.topic_id = topic.topic_id;
    for (const auto& part : topic.partitions) {
      auto& r = t.partitions.emplace_back();
      r.partition_index = part.partition_index;
      r.error_code = code(error);
    }
  }
  return resp;
}

}  // namespace skiff::api
