// The streams-group vocabulary of the group coordinator (KIP-1071): what
// StreamsGroupHeartbeat (88), StreamsGroupDescribe (89) and
// StreamsGroupTopologyDescriptionUpdate (93) give the coordinator and get
// back. Unlike the consumer and share groups' plain structs, these carry the
// generated request and response messages: the heartbeat's topology and
// task lists are what the streams foundation (streams/streams_conversions.h)
// converts, and the response's task, status and endpoint lists are built
// once, here, rather than copied through a second shape.
//
// The handler (api/handlers/) checks what Kafka's KafkaApis checks before
// the coordinator (internal and invalid topic names, DESCRIBE on the
// topology's topics), creates the internal topics the result asks for
// (CREATE checked as Kafka checks it), and sends the response.
//
// Threads: plain values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "coordinator/group/group_types.h"
#include "coordinator/group/streams/topic_configuration.h"
#include "protocol/generated/streams_group_describe_response.h"
#include "protocol/generated/streams_group_heartbeat_request.h"
#include "protocol/generated/streams_group_heartbeat_response.h"
#include "protocol/generated/streams_group_topology_description_update_request.h"

namespace skiff::group {

struct StreamsHeartbeatParams {
  int16_t version = 0;
  const protocol::StreamsGroupHeartbeatRequest* request = nullptr;  // not owned; outlives the call
  std::string client_id;
  std::string client_host;
  TopicResolver resolve;  // the broker's topics: id and partition count by name
};

struct StreamsHeartbeatResult {
  protocol::StreamsGroupHeartbeatResponse response;
  // Internal topics the group needs and the broker lacks (with the status
  // MISSING_INTERNAL_TOPICS in the response); the handler creates them.
  std::vector<streams::InternalTopicToCreate> to_create;
};

// StreamsGroupDescribe of one group; `include_description`: v1+ carries the
// topology description (KIP-1331) kept from API 93.
using StreamsGroupDescribed = protocol::StreamsGroupDescribeResponse::DescribedGroup;

struct StreamsTopologyUpdateResult {
  ErrorCode error = ErrorCode::kNone;
  std::optional<std::string> message;
};

}  // namespace skiff::group
