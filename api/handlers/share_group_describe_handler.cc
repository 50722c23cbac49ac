#include "api/handlers/share_group_describe_handler.h"

#include "api/authorize.h"
#include "api/handlers/modern_group_support.h"
#include "api/topics.h"
#include "coordinator/group/group_coordinator.h"

namespace skiff::api {
namespace {

using protocol::ShareGroupDescribeResponse;

bool may_describe_share_topics(BrokerServices& services, const ApiRequest& request,
                               const ShareGroupDescribeResponse::DescribedGroup& g) {
  for (const auto& m : g.members)
    for (const auto& tp : m.assignment.topic_partitions)
      if (!authorized_topic(services, request, AclOperation::kDescribe, tp.topic_name)) return false;
  return true;
}

}  // namespace

// DESCRIBE on each group, else GROUP_AUTHORIZATION_FAILED; DESCRIBE on the
// topics its members are assigned, else TOPIC_AUTHORIZATION_FAILED (KafkaApis).
void ShareGroupDescribeHandler::handle(ApiRequest& request, protocol::ShareGroupDescribeRequest& body, Responder& out) {
  ShareGroupDescribeResponse resp;
  for (const auto& id : body.group_ids) {
    auto& g = resp.groups.emplace_back();
    g.group_id = id;
    if (!authorized_group(services_, request, AclOperation::kDescribe, id)) {
      g.error_code = code(ErrorCode::kGroupAuthorizationFailed);
      continue;
    }
    auto d = services_.groups->describe_share_group(id);
    g.error_code = code(d.error);
    g.error_message = std::move(d.message);
    if (d.error != ErrorCode::kNone) continue;
    g.group_state = d.state;
    g.group_epoch = d.group_epoch;
    g.assignment_epoch = d.assignment_epoch;
    g.assignor_name = d.assignor;
    if (body.include_authorized_operations)
      g.authorized_operations = authorized_ops(services_, request, ResourceType::kGroup, id);
    for (auto& m : d.members) {
      auto& dm = g.members.emplace_back();
      dm.member_id = m.member_id;
      dm.rack_id = m.rack_id;
      dm.member_epoch = m.member_epoch;
      dm.client_id = m.client_id;
      dm.client_host = m.client_host;
      dm.subscribed_topic_names = m.subscribed_names;
      dm.assignment = modern_group::assignment_to_wire<ShareGroupDescribeResponse::Assignment>(services_, m.assigned,
                                                                                               d.topic_names);
    }
    if (services_.authorizer && !may_describe_share_topics(services_, request, g)) {
      g = {};
      g.group_id = id;
      g.error_code = code(ErrorCode::kTopicAuthorizationFailed);
      g.error_message = "The described group uses topics that the client is not authorized to describe.";
    }
  }
  out.send(resp);
}

ShareGroupDescribeResponse ShareGroupDescribeHandler::error_response(const protocol::ShareGroupDescribeRequest& body,
                                                                     ErrorCode error) {
  ShareGroupDescribeResponse resp;
  for (const auto& id : body.group_ids) {
    auto& g = resp.groups.emplace_back();
    g.group_id = id;
    g.error_code = code(error);
  }
  return resp;
}

}  // namespace skiff::api
