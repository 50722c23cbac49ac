#include "api/handlers/consumer_group_describe_handler.h"

#include "api/authorize.h"
#include "api/handlers/modern_group_support.h"
#include "api/topics.h"
#include "coordinator/group/group_coordinator.h"

namespace skiff::api {
namespace {

using protocol::ConsumerGroupDescribeResponse;
constexpr int8_t kClassicMemberType = 0;  // Kafka's MemberType: 0 classic, 1 consumer
constexpr int8_t kConsumerMemberType = 1;

// Kafka hides a group whose members' assignments name a topic the principal
// may not DESCRIBE.
bool may_describe_topics(BrokerServices& services, const ApiRequest& request,
                         const ConsumerGroupDescribeResponse::DescribedGroup& g) {
  for (const auto& m : g.members)
    for (const auto* a : {&m.assignment, &m.target_assignment})
      for (const auto& tp : a->topic_partitions)
        if (!authorized_topic(services, request, AclOperation::kDescribe, tp.topic_name)) return false;
  return true;
}

}  // namespace

// DESCRIBE on each group, else GROUP_AUTHORIZATION_FAILED; DESCRIBE on the
// topics its members are assigned, else TOPIC_AUTHORIZATION_FAILED (KafkaApis).
void ConsumerGroupDescribeHandler::handle(ApiRequest& request, protocol::ConsumerGroupDescribeRequest& body,
                                          Responder& out) {
  ConsumerGroupDescribeResponse resp;
  for (const auto& id : body.group_ids) {
    if (!authorized_group(services_, request, AclOperation::kDescribe, id)) {
      auto& g = resp.groups.emplace_back();
      g.group_id = id;
      g.error_code = code(ErrorCode::kGroupAuthorizationFailed);
      g.error_message = std::nullopt;
      continue;
    }
    auto d = services_.groups->describe_consumer_group(id);
    auto& g = resp.groups.emplace_back();
    g.group_id = id;
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
      dm.instance_id = m.instance_id;
      dm.rack_id = m.rack_id;
      dm.member_epoch = m.member_epoch;
      dm.client_id = m.client_id;
      dm.client_host = m.client_host;
      dm.subscribed_topic_names = m.subscribed_names;
      dm.subscribed_topic_regex = m.subscribed_regex;
      dm.assignment = modern_group::assignment_to_wire<ConsumerGroupDescribeResponse::Assignment>(services_, m.assigned,
                                                                                                  d.topic_names);
      dm.target_assignment = modern_group::assignment_to_wire<ConsumerGroupDescribeResponse::Assignment>(
          services_, m.target, d.topic_names);
      dm.member_type = m.classic ? kClassicMemberType : kConsumerMemberType;
    }
    if (services_.authorizer && !may_describe_topics(services_, request, g)) {
      g = {};
      g.group_id = id;
      g.error_code = code(ErrorCode::kTopicAuthorizationFailed);
      g.error_message = "The described group uses topics that the client is not authorized to describe.";
    }
  }
  out.send(resp);
}

ConsumerGroupDescribeResponse ConsumerGroupDescribeHandler::error_response(
    const protocol::ConsumerGroupDescribeRequest& body, ErrorCode error) {
  ConsumerGroupDescribeResponse resp;
  for (const auto& id : body.group_ids) {
    auto& g = resp.groups.emplace_back();
    g.group_id = id;
    g.error_code = code(error);
  }
  return resp;
}

}  // namespace skiff::api
