#include "api/handlers/alter_share_group_offsets_handler.h"

#include "api/authorize.h"
#include "coordinator/group/group_coordinator.h"

namespace skiff::api {
namespace {

using protocol::AlterShareGroupOffsetsRequest;
using protocol::AlterShareGroupOffsetsResponse;
using AlterShareTopic = AlterShareGroupOffsetsResponse::AlterShareGroupOffsetsResponseTopic;

}  // namespace

// READ on the group, else GROUP_AUTHORIZATION_FAILED; READ on each topic,
// else TOPIC_AUTHORIZATION_FAILED for its partitions (KafkaApis).
void AlterShareGroupOffsetsHandler::handle(ApiRequest& request, AlterShareGroupOffsetsRequest& body, Responder& out) {
  if (!authorized_group(services_, request, AclOperation::kRead, body.group_id)) {
    out.send(error_response(body, ErrorCode::kGroupAuthorizationFailed));
    return;
  }
  std::vector<AlterShareTopic> denied;
  std::vector<group::AlterShareOffsetsTopic> topics;
  for (const auto& t : body.topics) {
    if (!authorized_topic(services_, request, AclOperation::kRead, t.topic_name)) {
      auto& d = denied.emplace_back();
      d.topic_name = t.topic_name;
      for (const auto& p : t.partitions) {
        auto& dp = d.partitions.emplace_back();
        dp.partition_index = p.partition_index;
        dp.error_code = code(ErrorCode::kTopicAuthorizationFailed);
        dp.error_message = "Topic authorization failed.";
      }
      continue;
    }
    auto& at = topics.emplace_back();
    at.topic = t.topic_name;
    for (const auto& p : t.partitions) at.partitions.emplace_back(p.partition_index, p.start_offset);
  }
  services_.groups->alter_share_offsets(body.group_id, topics,
                                        [out, denied = std::move(denied)](group::AlterShareOffsetsResult r) mutable {
                                          AlterShareGroupOffsetsResponse resp;
                                          resp.error_code = code(r.error);
                                          resp.error_message = std::move(r.message);
                                          for (auto& t : r.topics) {
                                            auto& wt = resp.responses.emplace_back();
                                            wt.topic_name = t.topic;
                                            wt.topic_id = t.topic_id;
                                            for (auto& p : t.partitions) {
                                              auto& wp = wt.partitions.emplace_back();
                                              wp.partition_index = p.partition;
                                              wp.error_code = code(p.error);
                                              wp.error_message = std::move(p.message);
                                            }
                                          }
                                          for (auto& d : denied) resp.responses.push_back(std::move(d));
                                          out.send(resp);
                                        });
}

AlterShareGroupOffsetsResponse AlterShareGroupOffsetsHandler::error_response(const AlterShareGroupOffsetsRequest& body,
                                                                             ErrorCode error) {
  AlterShareGroupOffsetsResponse resp;
  resp.error_code = code(error);
  for (const auto& t : body.topics) {  // Kafka: every partition carries the error too
    auto& wt = resp.responses.emplace_back();
    wt.topic_name = t.topic_name;
    for (const auto& p : t.partitions) {
      auto& wp = wt.partitions.emplace_back();
      wp.partition_index = p.partition_index;
      wp.error_code = code(error);
    }
  }
  return resp;
}

}  // namespace skiff::api
