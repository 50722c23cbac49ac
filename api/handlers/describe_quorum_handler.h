// DescribeQuorum (key 55), v0-2: Skiff has no KRaft quorum, so it answers as
// the single-voter quorum of a one-node Kafka: this node is the only voter and
// the leader of __cluster_metadata-0, with no observers, so
// `kafka-metadata-quorum describe --status / --replication` and monitors that
// probe the quorum are satisfied. Skiff keeps no metadata log: the high
// watermark and end offset are 0, the leader epoch is 1 (the first election),
// the voter's directory id is the directory.id of the first log dir (as
// Kafka's metadata.log.dir defaults to it; zero when its meta.properties has
// none, api/handlers/quorum_admin_handlers.h), and its fetch and caught-up times
// are now (Kafka reports the leader so). v2's Nodes lists this node's
// advertised listeners, where the voter is reachable.
// As Kafka's raft client, any request other than for __cluster_metadata-0
// gets UNKNOWN_TOPIC_OR_PARTITION on every partition it named.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/describe_quorum_request.h"
#include "protocol/generated/describe_quorum_response.h"

namespace skiff::api {

class DescribeQuorumHandler
    : public TypedApiHandler<protocol::DescribeQuorumRequest, protocol::DescribeQuorumResponse> {
 public:
  explicit DescribeQuorumHandler(BrokerServices& services)
      : TypedApiHandler(protocol::DescribeQuorumRequest::kApiKey, 0, 2), services_(services) {}

  static constexpr std::string_view kMetadataTopic = "__cluster_metadata";

 protected:
  void handle(ApiRequest& request, protocol::DescribeQuorumRequest& body, Responder& out) override;
  protocol::DescribeQuorumResponse error_response(const protocol::DescribeQuorumRequest& body,
                                                  ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
