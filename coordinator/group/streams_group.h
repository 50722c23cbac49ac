// StreamsGroup: one KIP-1071 streams group (Kafka 4.4's streams/StreamsGroup
// and StreamsGroupMember): the group epoch, the application's topology and
// its configuration against the broker's topics (streams/topic_configuration.h),
// the target assignment of the sticky task assignor and its epoch, the
// members with their process, endpoint and reconciliation state
// (streams::MemberAssignmentState), who holds which task
// (streams::TaskOwnership), and what the group reports: its state, the
// endpoint-information epoch, a member's request to shut the application down.
// The protocol (StreamsGroupHeartbeat) is driven by GroupCoordinator
// (streams_heartbeat.cc); this class keeps the data consistent.
//
// A streams group shares the group-id namespace with the other types:
// GroupMetadata::streams is set for one (its classic part stays Empty with no
// member, as for consumer and share groups); its committed offsets stay in
// the GroupMetadata.
//
// Threads: owned by its GroupMetadata and guarded by that group's mutex.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "coordinator/group/assignor.h"
#include "coordinator/group/group_types.h"
#include "coordinator/group/streams/streams_member_reconciler.h"
#include "coordinator/group/streams/streams_tasks.h"
#include "coordinator/group/streams/streams_topology.h"
#include "coordinator/group/streams/topic_configuration.h"
#include "protocol/generated/streams_group_topology_description_update_request.h"

namespace skiff::group {

struct StreamsEndpoint {
  std::string host;
  uint16_t port = 0;
  bool operator==(const StreamsEndpoint&) const = default;
};

// subtopology -> partition -> offset, as a member reports them.
using StreamsTaskOffsets = std::map<std::string, std::map<int32_t, int64_t>>;

struct StreamsGroupMember {
  std::string member_id;
  std::optional<std::string> instance_id;
  std::optional<std::string> rack_id;
  std::string client_id;
  std::string client_host;
  int32_t rebalance_timeout_ms = -1;
  int32_t topology_epoch = 0;
  std::string process_id;
  std::optional<StreamsEndpoint> user_endpoint;
  std::map<std::string, std::string> client_tags;
  // Epochs, state and tasks; its process_id is the member's.
  streams::MemberAssignmentState assignment;
  // Not durable (Kafka keeps them in memory too): the last task offsets and
  // end offsets the member reported, for the assignor and describe.
  StreamsTaskOffsets task_offsets;
  StreamsTaskOffsets task_end_offsets;
  // Session expiry and revocation timers, as ConsumerGroupMember's.
  std::chrono::steady_clock::time_point session_deadline{};
  std::chrono::steady_clock::time_point session_timer_at{};
  bool session_timer_armed = false;
  uint64_t session_timer_round = 0;
  uint64_t revocation_round = 0;

  // What StreamsGroupMemberMetadataValue holds.
  bool same_metadata(const StreamsGroupMember& o) const {
    return instance_id == o.instance_id && rack_id == o.rack_id && client_id == o.client_id &&
           client_host == o.client_host && rebalance_timeout_ms == o.rebalance_timeout_ms &&
           topology_epoch == o.topology_epoch && process_id == o.process_id && user_endpoint == o.user_endpoint &&
           client_tags == o.client_tags;
  }
  // Kafka's isReconciledTo: at the epoch with nothing pending.
  bool reconciled_to(int32_t epoch) const {
    return assignment.member_epoch == epoch && assignment.state == streams::MemberState::kStable;
  }
};

// What of a streams group is durable, as of one moment
// (streams_records_since compares two of them to write only what changed).
struct StreamsGroupImage {
  int32_t group_epoch = 0;
  int64_t metadata_hash = 0;
  int32_t validated_topology_epoch = -1;
  std::map<std::string, std::string> assignment_configs;
  int32_t stored_description_epoch = -1;
  std::optional<streams::Topology> topology;
  int32_t assignment_epoch = 0;
  std::map<std::string, streams::TasksTuple> targets;
  std::map<std::string, StreamsGroupMember> members;
};

class StreamsGroup {
 public:
  StreamsGroupImage image() const;

  int32_t group_epoch = 0;
  int64_t metadata_hash = 0;
  int32_t validated_topology_epoch = -1;
  std::map<std::string, std::string> assignment_configs;  // the last target's (num.standby.replicas)
  // KIP-1331: the topology epoch of the description kept (-1: none).
  int32_t stored_description_epoch = -1;
  std::optional<streams::Topology> topology;
  // The topology configured against the broker's topics (not durable:
  // recomputed at the first heartbeat after a load).
  std::optional<streams::ConfiguredTopology> configured;
  int32_t assignment_epoch = 0;
  std::map<std::string, streams::TasksTuple> targets;  // by member id
  std::map<std::string, StreamsGroupMember> members;
  streams::TaskOwnership owners;
  // Interactive-query metadata: bumped when a member with an endpoint gets
  // new tasks; a member whose epoch differs gets the whole map.
  int32_t endpoint_info_epoch = 0;
  std::optional<std::string> shutdown_requested_by;
  // The required topics as last resolved (name -> id, partitions).
  std::map<std::string, consumer::TopicMetadata> topics;
  // The initial rebalance delay's end while it runs (Kafka's
  // streamsInitialRebalanceKey timer).
  std::optional<std::chrono::steady_clock::time_point> delay_until;
  // KIP-1331's topology description (API 93), kept in memory.
  std::optional<protocol::StreamsGroupTopologyDescriptionUpdateRequest::TopologyDescription> description;

  bool empty() const { return members.empty(); }
  // Kafka's StreamsGroupState: Empty, NotReady, Assigning, Reconciling, Stable.
  std::string state() const;
  StreamsGroupMember* get(const std::string& member_id);
  // Re-reads the required topics; the hash of what exists.
  int64_t resolve_topics(const TopicResolver& resolve);
  // A topic's partition count as last resolved.
  std::optional<int32_t> partitions_of(const std::string& topic) const;
  // Replaces a member's assignment state, keeping `owners` in step.
  void set_assignment(StreamsGroupMember& m, const streams::MemberAssignmentState& next);
  // Removes a member, its target and its tasks (no epoch change).
  void remove(const std::string& member_id);
  // The sticky assignor over every member; `targets` and `assignment_epoch`
  // move to `epoch`. Throws streams::TaskAssignorError.
  void compute_target(int32_t epoch, int32_t num_standby_replicas);
  // The target of one member (empty when it has none).
  const streams::TasksTuple& target_of(const std::string& member_id) const;

  // OffsetCommit / TxnOffsetCommit's member checks (Kafka 4.4's
  // StreamsGroup.validateOffsetCommit with the tasks' assignment epochs): a
  // negative epoch commits on a group without members; a transactional
  // commit without member id and epoch -1 commits; else the member must
  // exist (UNKNOWN_MEMBER_ID), a non-transactional OffsetCommit below v9 is
  // UNSUPPORTED_VERSION, a newer epoch is STALE_MEMBER_EPOCH, an older one
  // commits only partitions of active tasks the member holds since that
  // epoch or before.
  ErrorCode check_commit(const std::string& member_id, int32_t epoch, bool transactional, int16_t api_version,
                         const std::vector<TopicPartition>& partitions) const;
  // OffsetFetch: an admin's fetch (no member id, negative epoch) or the
  // member at its exact epoch.
  ErrorCode check_fetch(const std::optional<std::string>& member_id, int32_t epoch) const;
};

}  // namespace skiff::group
