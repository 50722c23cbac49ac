// Conversions between the streams groups' values (streams_tasks.h,
// streams_topology.h, streams_member_reconciler.h) and what carries them:
// StreamsGroupHeartbeat's topology and owned tasks, and the
// StreamsGroupCurrentMemberAssignment / StreamsGroupTargetAssignmentMember
// records (Kafka 4.4's StreamsTopology.fromHeartbeatRequest,
// TasksTuple.fromHeartbeatRequest / fromTargetAssignmentRecord,
// TasksTupleWithEpochs.fromCurrentAssignmentRecord and
// StreamsCoordinatorRecordHelpers). Task lists are written sorted.
//
// Threads: pure functions.
#pragma once

#include <optional>
#include <string>

#include "coordinator/group/streams/generated/streams_group_current_member_assignment_value.h"
#include "coordinator/group/streams/generated/streams_group_target_assignment_member_value.h"
#include "coordinator/group/streams/streams_member_reconciler.h"
#include "coordinator/group/streams/streams_topology.h"
#include "protocol/generated/streams_group_heartbeat_request.h"

namespace skiff::group::streams {

// The topology a member sends when it joins. Source topic regexes are not
// carried (Kafka 4.4 does not serve them; has_source_topic_regex tells).
Topology topology_from_heartbeat(const protocol::StreamsGroupHeartbeatRequest::Topology& t);
bool has_source_topic_regex(const protocol::StreamsGroupHeartbeatRequest::Topology& t);

// The tasks the member reports owning; nothing when it reported none (no
// task list at all), so a revocation cannot be confirmed by this heartbeat.
std::optional<TasksTuple> owned_from_heartbeat(const protocol::StreamsGroupHeartbeatRequest& r);

// The current assignment record of a member. Active tasks without
// assignment epochs, or with a count that does not match, take the
// member's epoch (Kafka logs the mismatch and does the same).
MemberAssignmentState member_from_record(const protocol::StreamsGroupCurrentMemberAssignmentValue& v,
                                         std::string process_id);
protocol::StreamsGroupCurrentMemberAssignmentValue member_to_record(const MemberAssignmentState& m);

TasksTuple target_from_record(const protocol::StreamsGroupTargetAssignmentMemberValue& v);
protocol::StreamsGroupTargetAssignmentMemberValue target_to_record(const TasksTuple& t);

}  // namespace skiff::group::streams
