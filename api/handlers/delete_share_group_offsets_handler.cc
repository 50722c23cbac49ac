#include "api/handlers/delete_share_group_offsets_handler.h"

#include "api/authorize.h"
#include "coordinator/group/group_coordinator.h"

namespace skiff::api {
namespace {

using protocol::DeleteShareGroupOffsetsRequest;
using protocol::DeleteShareGroupOffsetsResponse;
using DeleteShareTopic = DeleteShareGroupOffsetsResponse::DeleteShareGroupOffsetsResponseTopic;

}  // namespace

// DELETE on the group, else GROUP_AUTHORIZATION_FAILED; READ on each topic,
// else TOPIC_AUTHORIZATION_FAILED for it (KafkaApis).
void DeleteShareGroupOffsetsHandler::handle(ApiRequest& request, DeleteShareGroupOffsetsRequest& body, Responder& out) {
  if (!authorized_group(services_, request, AclOperation::kDelete, body.group_id)) {
    out.send(error_response(body, ErrorCode::kGroupAuthorizationFailed));
    return;
  }
  std::vector<DeleteShareTopic> denied;
  std::vector<std::string> topics;
  for (const auto& t : body.topics) {
    if (authorized_topic(services_, request, AclOperation::kRead, t.topic_name)) {
      topics.push_back(t.topic_name);
      continue;
    }
    auto& d = denied.emplace_back();
    d.topic_name = t.topic_name;
    d.error_code = code(ErrorCode::kTopicAuthorizationFailed);
    d.error_message = "Topic authorization failed.";
  }
  services_.groups->delete_share_offsets(body.group_id, topics,
                                         [out, denied = std::move(denied)](group::DeleteShareOffsetsResult r) mutable {
                                           DeleteShareGroupOffsetsResponse resp;
                                           resp.error_code = code(r.error);
                                           resp.error_message = std::move(r.message);
                                           for (auto& t : r.topics) {
                                             auto& wt = resp.responses.emplace_back();
                                             wt.topic_name = t.topic;
                                             wt.topic_id = t.topic_id;
                                             wt.error_code = code(t.error);
                                             wt.error_message = std::move(t.message);
                                           }
                                           for (auto& d : denied) resp.responses.push_back(std::move(d));
                                           out.send(resp);
                                         });
}

DeleteShareGroupOffsetsResponse DeleteShareGroupOffsetsHandler::error_response(const DeleteShareGroupOffsetsRequest&,
                                                                               ErrorCode error) {
  DeleteShareGroupOffsetsResponse resp;
  resp.error_code = code(error);
  return resp;
}

}  // namespace skiff::api
