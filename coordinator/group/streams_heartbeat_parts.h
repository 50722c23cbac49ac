// The pure parts of StreamsGroupHeartbeat (streams_heartbeat.cc): Kafka
// 4.4's request checks (GroupCoordinatorService.
// throwIfStreamsGroupHeartbeatRequestIsUsingUnsupportedFeatures and
// throwIfStreamsGroupHeartbeatRequestIsInvalid), the member-epoch and
// owned-task checks of GroupMetadataManager, the member's update from the
// request, and the response's task lists, statuses and endpoint map, with
// Kafka's messages.
//
// Threads: pure functions.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "coordinator/group/streams_group.h"
#include "coordinator/group/streams_group_types.h"

namespace skiff::group::streams_hb {

using Req = protocol::StreamsGroupHeartbeatRequest;
using Resp = protocol::StreamsGroupHeartbeatResponse;

StreamsHeartbeatResult failed(ErrorCode e, std::optional<std::string> message = std::nullopt);
Resp::Status status(streams::StreamsStatus code, std::string detail);

// The first check the request fails: INVALID_REQUEST, or
// STREAMS_INVALID_TOPOLOGY for a changelog topic with a partition count.
std::optional<std::pair<ErrorCode, std::string>> invalid_request(const Req& r);
// Its two halves: the ids (member, group, instance, rack), then the epoch
// with what a join must carry and the task lists.
std::optional<std::pair<ErrorCode, std::string>> invalid_ids(const Req& r);
std::optional<std::pair<ErrorCode, std::string>> invalid_epoch_and_lists(const Req& r);
// FENCED_MEMBER_EPOCH's message when a known member's epoch is neither its
// current one nor (with its tasks a subset of its assignment) its previous.
// A join (epoch 0) of a known member is accepted, as Kafka's consumer groups
// accept it (the fenced member's recovery).
std::optional<std::string> fenced_epoch(const StreamsGroupMember& m, const Req& r);
// Kafka's throwIfRequestContainsInvalidTasks over the three task lists.
std::optional<std::string> invalid_tasks(const std::map<std::string, streams::ConfiguredSubtopology>& subtopologies,
                                         const Req& r);
// Rack, rebalance timeout, topology epoch, client, process, tags, endpoint
// and reported task offsets, as the request sends them.
void update_member(StreamsGroupMember& m, const Req& r, const std::string& client_id, const std::string& client_host);

std::vector<Resp::TaskIds> task_ids(const streams::TaskSet& tasks);
// Kafka's EndpointToPartitionsManager: every member with an endpoint and the
// partitions of its active and standby tasks (each task's partition of its
// subtopology's source and repartition source topics); `self` last.
std::vector<Resp::EndpointToPartitions> endpoints(const StreamsGroup& sg, const std::string& self);

}  // namespace skiff::group::streams_hb
