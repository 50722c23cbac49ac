#include "api/handlers/describe_quorum_handler.h"

#include "api/authorize.h"
#include "common/wall_clock.h"

namespace skiff::api {
namespace {

using protocol::DescribeQuorumRequest;
using protocol::DescribeQuorumResponse;

bool asks_for_metadata_partition(const DescribeQuorumRequest& body) {
  return body.topics.size() == 1 && body.topics[0].topic_name == DescribeQuorumHandler::kMetadataTopic &&
         body.topics[0].partitions.size() == 1 && body.topics[0].partitions[0].partition_index == 0;
}

// Every partition the request named, answered with `error`.
DescribeQuorumResponse partition_errors(const DescribeQuorumRequest& body, ErrorCode error) {
  DescribeQuorumResponse resp;
  resp.error_message = std::nullopt;
  for (const auto& t : body.topics) {
    DescribeQuorumResponse::TopicData td;
    td.topic_name = t.topic_name;
    for (const auto& p : t.partitions) {
      DescribeQuorumResponse::PartitionData pd;
      pd.partition_index = p.partition_index;
      pd.error_code = code(error);
      pd.error_message = std::nullopt;
      pd.leader_id = -1;
      td.partitions.push_back(std::move(pd));
    }
    resp.topics.push_back(std::move(td));
  }
  return resp;
}

DescribeQuorumResponse::PartitionData leader_partition(int32_t node_id, const Uuid& directory_id) {
  DescribeQuorumResponse::PartitionData pd;
  pd.partition_index = 0;
  pd.error_message = std::nullopt;
  pd.leader_id = node_id;
  pd.leader_epoch = 1;
  pd.high_watermark = 0;
  DescribeQuorumResponse::ReplicaState self;
  self.replica_id = node_id;
  self.replica_directory_id = directory_id;  // v2+
  self.log_end_offset = 0;
  self.last_fetch_timestamp = self.last_caught_up_timestamp = wall_clock_ms();
  pd.current_voters.push_back(self);
  return pd;
}

}  // namespace

void DescribeQuorumHandler::handle(ApiRequest& request, DescribeQuorumRequest& body, Responder& out) {
  if (!authorized_cluster(services_, request, AclOperation::kDescribe)) {  // as ControllerApis
    out.send(error_response(body, ErrorCode::kClusterAuthorizationFailed));
    return;
  }
  if (!asks_for_metadata_partition(body)) {
    out.send(partition_errors(body, ErrorCode::kUnknownTopicOrPartition));
    return;
  }
  const auto& broker = services_.broker;
  DescribeQuorumResponse resp;
  resp.error_message = std::nullopt;
  DescribeQuorumResponse::TopicData td;
  td.topic_name = std::string(kMetadataTopic);
  // ReplicaDirectoryId is v2+ and not ignorable: zero below.
  const Uuid directory_id =
      request.api_version() >= 2 ? Uuid::parse(broker.metadata_directory_id).value_or(Uuid{}) : Uuid{};
  td.partitions.push_back(leader_partition(broker.node_id, directory_id));
  resp.topics.push_back(std::move(td));
  if (request.api_version() >= 2) {  // Nodes is not ignorable
    DescribeQuorumResponse::Node node;
    node.node_id = broker.node_id;
    for (const auto& ep : broker.endpoints) {
      DescribeQuorumResponse::Listener l;
      l.name = ep.listener_name;
      l.host = ep.host;
      l.port = static_cast<uint16_t>(ep.port);
      node.listeners.push_back(std::move(l));
    }
    resp.nodes.push_back(std::move(node));
  }
  out.send(resp);
}

DescribeQuorumResponse DescribeQuorumHandler::error_response(const DescribeQuorumRequest&, ErrorCode error) {
  DescribeQuorumResponse resp;
  resp.error_code = code(error);
  resp.error_message = std::nullopt;
  return resp;
}

}  // namespace skiff::api
