#include "api/handlers/offset_commit_handler.h"

#include <chrono>

#include "api/authorize.h"
#include "api/handlers/committed_offsets.h"
#include "common/wall_clock.h"
#include "coordinator/group/group_coordinator.h"

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
  // v10 names topics by id (KIP-848).
  const auto slots = resolve_committed_offsets(
      services_, body, version >= 10,
      [&](const std::string& topic) { return authorized_topic(services_, request, AclOperation::kRead, topic); },
      [&](const auto& part) {
        auto o = committed_offset(part, version >= 6, now);
        if (version <= 4 && body.retention_time_ms >= 0) o.expire_timestamp = now + body.retention_time_ms;
        return o;
      },
      resp, p);
  if (!p.offsets.empty()) answer_offsets(resp, slots, services_.groups->commit_offsets(p));
  out.send(resp);
}

OffsetCommitResponse OffsetCommitHandler::error_response(const OffsetCommitRequest& body, ErrorCode error) {
  return every_partition_answered<OffsetCommitResponse>(body, error);
}

}  // namespace skiff::api
