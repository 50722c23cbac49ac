#include "api/handlers/alter_partition_reassignments_handler.h"

#include <set>

#include "api/authorize.h"

namespace skiff::api {
namespace {

using protocol::AlterPartitionReassignmentsRequest;
using protocol::AlterPartitionReassignmentsResponse;
using ReassignOutcome = AlterPartitionReassignmentsResponse::ReassignablePartitionResponse;
using ReassignPartition = AlterPartitionReassignmentsRequest::ReassignablePartition;

ReassignOutcome outcome(ErrorCode error, std::optional<std::string> message) {
  ReassignOutcome o;
  o.error_code = code(error);
  o.error_message = std::move(message);
  return o;
}

// Kafka's checks of a manual assignment (ReplicationControlManager), against
// a cluster whose only broker is `node_id`.
ReassignOutcome check_replicas(const std::vector<int32_t>& replicas, int32_t node_id) {
  if (replicas.empty())
    return outcome(ErrorCode::kInvalidReplicaAssignment,
                   "The manual partition assignment includes an empty replica list.");
  std::set<int32_t> seen;
  for (int32_t id : replicas) {
    if (!seen.insert(id).second)
      return outcome(ErrorCode::kInvalidReplicaAssignment,
                     "The manual partition assignment includes the broker " + std::to_string(id) + " more than once.");
  }
  for (int32_t id : replicas) {
    if (id != node_id)
      return outcome(ErrorCode::kInvalidReplicaAssignment, "The manual partition assignment includes broker " +
                                                               std::to_string(id) +
                                                               ", but no such broker is registered.");
  }
  return outcome(ErrorCode::kNone, std::nullopt);  // [node_id]: what the partition already has
}

template <class Answer>
AlterPartitionReassignmentsResponse per_partition(const AlterPartitionReassignmentsRequest& body, Answer&& answer) {
  AlterPartitionReassignmentsResponse resp;
  resp.error_message = std::nullopt;
  resp.allow_replication_factor_change = body.allow_replication_factor_change;
  for (const auto& t : body.topics) {
    AlterPartitionReassignmentsResponse::ReassignableTopicResponse tr;
    tr.name = t.name;
    for (const auto& p : t.partitions) {
      ReassignOutcome o = answer(t.name, p);
      o.partition_index = p.partition_index;
      tr.partitions.push_back(std::move(o));
    }
    resp.responses.push_back(std::move(tr));
  }
  return resp;
}

}  // namespace

void AlterPartitionReassignmentsHandler::handle(ApiRequest& request, AlterPartitionReassignmentsRequest& body,
                                                Responder& out) {
  if (!authorized_cluster(services_, request, AclOperation::kAlter)) {  // as ControllerApis
    out.send(error_response(body, ErrorCode::kClusterAuthorizationFailed));
    return;
  }
  out.send(per_partition(body, [&](const std::string& topic, const ReassignPartition& p) {
    auto info = services_.logs.topic(topic);
    if (!info) return outcome(ErrorCode::kUnknownTopicOrPartition, "Unable to find a topic named " + topic + ".");
    if (p.partition_index < 0 || p.partition_index >= info->partitions)
      return outcome(ErrorCode::kUnknownTopicOrPartition,
                     "Unable to find partition " + topic + ":" + std::to_string(p.partition_index) + ".");
    if (!p.replicas) return outcome(ErrorCode::kNoReassignmentInProgress, "No partition reassignment is in progress.");
    return check_replicas(*p.replicas, services_.broker.node_id);
  }));
}

AlterPartitionReassignmentsResponse AlterPartitionReassignmentsHandler::error_response(
    const AlterPartitionReassignmentsRequest& body, ErrorCode error) {
  auto resp =
      per_partition(body, [&](const std::string&, const ReassignPartition&) { return outcome(error, std::nullopt); });
  resp.error_code = code(error);
  return resp;
}

}  // namespace skiff::api
