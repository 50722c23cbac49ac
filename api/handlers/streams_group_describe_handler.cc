#include "api/handlers/streams_group_describe_handler.h"

#include "api/authorize.h"
#include "coordinator/group/group_coordinator.h"

namespace skiff::api {
namespace {

using protocol::StreamsGroupDescribeResponse;
using DescribedGroup = StreamsGroupDescribeResponse::DescribedGroup;

DescribedGroup failed(const std::string& group_id, ErrorCode error) {
  DescribedGroup g;
  g.group_id = group_id;
  g.error_code = code(error);
  g.error_message = std::nullopt;
  return g;
}

// Kafka hides a group whose topology names a topic (source, repartition
// sink or source, changelog) the principal may not DESCRIBE.
bool may_describe_topology(BrokerServices& services, const ApiRequest& request, const DescribedGroup& g) {
  if (!g.topology || !g.topology->subtopologies) return true;
  auto may = [&](const std::string& t) { return authorized_topic(services, request, AclOperation::kDescribe, t); };
  for (const auto& s : *g.topology->subtopologies) {
    for (const auto& t : s.source_topics)
      if (!may(t)) return false;
    for (const auto& t : s.repartition_sink_topics)
      if (!may(t)) return false;
    for (const auto& t : s.repartition_source_topics)
      if (!may(t.name)) return false;
    for (const auto& t : s.state_changelog_topics)
      if (!may(t.name)) return false;
  }
  return true;
}

}  // namespace

void StreamsGroupDescribeHandler::handle(ApiRequest& request, protocol::StreamsGroupDescribeRequest& body,
                                         Responder& out) {
  StreamsGroupDescribeResponse resp;
  for (const auto& id : body.group_ids) {
    if (!authorized_group(services_, request, AclOperation::kDescribe, id)) {
      resp.groups.push_back(failed(id, ErrorCode::kGroupAuthorizationFailed));
      continue;
    }
    if (id.empty()) {
      resp.groups.push_back(failed(id, ErrorCode::kInvalidGroupId));
      continue;
    }
    // v0 has no IncludeTopologyDescription (false): nothing of KIP-1331 then.
    auto g = services_.groups->describe_streams_group(id, body.include_topology_description);
    if (g.error_code == code(ErrorCode::kNone) && body.include_authorized_operations)
      g.authorized_operations = authorized_ops(services_, request, ResourceType::kGroup, id);
    if (services_.authorizer && !may_describe_topology(services_, request, g)) {
      g = failed(id, ErrorCode::kTopicAuthorizationFailed);
      g.error_message = "The described group uses topics that the client is not authorized to describe.";
    }
    resp.groups.push_back(std::move(g));
  }
  out.send(resp);
}

StreamsGroupDescribeResponse StreamsGroupDescribeHandler::error_response(
    const protocol::StreamsGroupDescribeRequest& body, ErrorCode error) {
  StreamsGroupDescribeResponse resp;
  for (const auto& id : body.group_ids) resp.groups.push_back(failed(id, error));
  return resp;
}

}  // namespace skiff::api
