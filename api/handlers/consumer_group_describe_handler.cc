#include "api/handlers/consumer_group_describe_handler.h"

#include "api/authorized_operations.h"
#include "api/group/group_coordinator.h"
#include "api/topics.h"

namespace skiff::api {
namespace {

using protocol::ConsumerGroupDescribeResponse;
constexpr int8_t kConsumerMemberType = 1;  // Kafka: 0 classic, 1 consumer

ConsumerGroupDescribeResponse::Assignment to_wire(BrokerServices& services, const group::consumer::Assignment& a,
                                                  const std::map<Uuid, std::string>& names) {
  ConsumerGroupDescribeResponse::Assignment out;
  for (const auto& [id, parts] : a) {
    auto& tp = out.topic_partitions.emplace_back();
    tp.topic_id = id;
    if (auto n = names.find(id); n != names.end()) {
      tp.topic_name = n->second;
    } else if (auto found = find_topic_by_name_or_id(services, "", id, true); found.topic) {
      tp.topic_name = found.topic->name;
    }
    tp.partitions.assign(parts.begin(), parts.end());
  }
  return out;
}

}  // namespace

void ConsumerGroupDescribeHandler::handle(ApiRequest&, protocol::ConsumerGroupDescribeRequest& body, Responder& out) {
  ConsumerGroupDescribeResponse resp;
  for (const auto& id : body.group_ids) {
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
    if (body.include_authorized_operations) g.authorized_operations = authorized_operations(AclResource::kGroup);
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
      dm.assignment = to_wire(services_, m.assigned, d.topic_names);
      dm.target_assignment = to_wire(services_, m.target, d.topic_names);
      dm.member_type = kConsumerMemberType;
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
