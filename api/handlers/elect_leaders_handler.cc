#include "api/handlers/elect_leaders_handler.h"

#include "api/authorize.h"
namespace skiff::api {
namespace {

using protocol::ElectLeadersRequest;
using protocol::ElectLeadersResponse;
using ElectionResult = ElectLeadersResponse::PartitionResult;

ElectionResult election_result(int32_t partition, ErrorCode error, std::optional<std::string> message) {
  ElectionResult r;
  r.partition_id = partition;
  r.error_code = code(error);
  r.error_message = std::move(message);
  return r;
}

// One result per named partition, from `answer(topic, partition)`.
template <class Answer>
ElectLeadersResponse per_partition(const ElectLeadersRequest& body, Answer&& answer) {
  ElectLeadersResponse resp;
  if (!body.topic_partitions) return resp;
  for (const auto& t : *body.topic_partitions) {
    ElectLeadersResponse::ReplicaElectionResult tr;
    tr.topic = t.topic;
    for (int32_t p : t.partitions) tr.partition_result.push_back(answer(t.topic, p));
    resp.replica_election_results.push_back(std::move(tr));
  }
  return resp;
}

}  // namespace

void ElectLeadersHandler::handle(ApiRequest& request, ElectLeadersRequest& body, Responder& out) {
  if (!authorized_cluster(services_, request, AclOperation::kAlter)) {  // as KafkaApis
    out.send(error_response(body, ErrorCode::kClusterAuthorizationFailed));
    return;
  }
  if (body.election_type != 0 && body.election_type != 1) {  // PREFERRED, UNCLEAN
    const auto why = "Unknown election type " + std::to_string(body.election_type) + ".";
    out.send(per_partition(
        body, [&](const std::string&, int32_t p) { return election_result(p, ErrorCode::kInvalidRequest, why); }));
    return;
  }
  out.send(per_partition(body, [&](const std::string& topic, int32_t p) {
    auto info = services_.logs.topic(topic);
    if (!info) return election_result(p, ErrorCode::kUnknownTopicOrPartition, "No such topic as " + topic);
    if (p < 0 || p >= info->partitions)
      return election_result(p, ErrorCode::kUnknownTopicOrPartition,
                             "No such partition as " + topic + "-" + std::to_string(p));
    return election_result(p, ErrorCode::kElectionNotNeeded, "Leader election not needed for topic partition.");
  }));
}

ElectLeadersResponse ElectLeadersHandler::error_response(const ElectLeadersRequest& body, ErrorCode error) {
  // Per partition only: the top-level code (v1+) cannot be encoded in v0.
  return per_partition(body, [&](const std::string&, int32_t p) { return election_result(p, error, std::nullopt); });
}

}  // namespace skiff::api
