// GroupCoordinator: Kafka's classic group protocol for every group on this
// node (it is the coordinator of all of them), KIP-848's consumer groups
// (consumer_heartbeat.cc, KIP848.md) and KIP-932's share groups
// (share_heartbeat.cc, share_admin.cc, KIP932.md; share-partition state
// through the ShareStateInitializer port): JoinGroup, SyncGroup,
// Heartbeat and LeaveGroup drive each group's state machine (GroupMetadata);
// OffsetCommit / OffsetFetch / OffsetDelete keep committed offsets, durable in
// the internal topic `__consumer_offsets` (OffsetsTopic, Kafka's record
// format); DescribeGroups / ListGroups / DeleteGroups for admins.
// TxnOffsetCommit keeps offsets pending per (group, producer id) until the
// transaction coordinator's marker for the group's `__consumer_offsets`
// partition commits or drops them (KIP-447; group_txn_offsets.cc): the
// pending offsets are a transactional batch of that partition, and on_marker
// appends the COMMIT/ABORT control batch there before applying it.
//
// Nothing here parks a thread. A JoinGroup that must wait for the other
// members, or a SyncGroup that waits for the leader's assignment, leaves its
// callback in the member; another member's request or a timer (TimerQueue:
// rebalance timeout, session expiry, initial delay) calls it later.
//
// Threads: every public method may be called from any handler thread. Each
// group has its own mutex, held for a whole operation on that group, and
// callbacks are called with it held (they only hand a response to the
// network layer). The map of groups has a shared_mutex that is a leaf: taken
// briefly, never held while taking a group's mutex. Timer callbacks run on
// the TimerQueue thread and take the group's mutex like any request. The
// state is loaded synchronously at construction (after log recovery, before
// any request is served), so COORDINATOR_LOAD_IN_PROGRESS is never needed. Transactional
// offsets also take `txn_mu_` (before any group's mutex): it orders their
// writes with the markers, as Kafka's partition log does. A write (offset
// commit, group state change) holds its handler thread until its
// group-committed fsync; why this coordinator is not on a strand like the
// transaction coordinator: docs/architecture.md, "Two coordinator models".
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "coordinator/group/group_dynamic_config.h"
#include "coordinator/group/group_metadata.h"
#include "coordinator/group/group_types.h"
#include "coordinator/group/offsets_topic.h"
#include "coordinator/group/share_group_types.h"
#include "coordinator/group/share_state_port.h"
#include "coordinator/group/streams_group_types.h"
#include "coordinator/runtime/timer_queue.h"
#include "coordinator/txn/txn_gates.h"

namespace skiff::group {

struct GroupConfig {
  int32_t min_session_timeout_ms = 6000;
  int32_t max_session_timeout_ms = 1800000;
  int32_t max_size = INT32_MAX;
  int32_t initial_rebalance_delay_ms = 0;
  int64_t offsets_retention_ms = 7LL * 24 * 3600 * 1000;  // -1: never
  int64_t offsets_retention_check_interval_ms = 600000;
  int32_t offset_metadata_max_bytes = 4096;
  int32_t offsets_topic_num_partitions = 50;  // which groups a marker's partition covers
  int32_t offsets_topic_segment_bytes = 104857600;
  // KIP-848's consumer protocol (Kafka's group.consumer.* defaults; the
  // min/max bound what a group's dynamic config may set).
  int32_t consumer_session_timeout_ms = 45000;
  int32_t consumer_min_session_timeout_ms = 45000;
  int32_t consumer_max_session_timeout_ms = 60000;
  int32_t consumer_heartbeat_interval_ms = 5000;
  int32_t consumer_min_heartbeat_interval_ms = 5000;
  int32_t consumer_max_heartbeat_interval_ms = 15000;
  int32_t consumer_max_size = INT32_MAX;
  std::string consumer_default_assignor = "uniform";                // the first of group.consumer.assignors
  std::vector<std::string> consumer_assignors{"uniform", "range"};  // group.consumer.assignors
  // group.consumer.migration.policy: disabled, upgrade, downgrade or
  // bidirectional (case-insensitive, as Kafka's ConsumerGroupMigrationPolicy).
  std::string consumer_migration_policy = "bidirectional";
  // Where the per-group dynamic configs are kept (group_dynamic_config.h;
  // the "group-configs" namespace of the metadata store); null: in memory only.
  metadata::Namespace* group_configs = nullptr;
  // Regex subscriptions are resolved again when the topic set changed, at
  // most this often per group (Kafka waits at least 10 s between batches; a
  // new regex is always resolved at once). Bounds the cost of topic churn.
  int32_t consumer_regex_refresh_min_interval_ms = 1000;
  // KIP-932's share groups (Kafka's group.share.* defaults, GroupCoordinatorConfig
  // and ShareGroupConfig); the min/max bound what a group's config may set.
  int32_t share_session_timeout_ms = 45000;
  int32_t share_min_session_timeout_ms = 45000;
  int32_t share_max_session_timeout_ms = 60000;
  int32_t share_heartbeat_interval_ms = 5000;
  int32_t share_min_heartbeat_interval_ms = 5000;
  int32_t share_max_heartbeat_interval_ms = 15000;
  int32_t share_max_size = 200;
  int32_t share_assignment_interval_ms = 1000;
  int32_t share_min_assignment_interval_ms = 0;
  int32_t share_max_assignment_interval_ms = 15000;
  int32_t share_initialize_retry_interval_ms = 30000;
  int32_t share_record_lock_duration_ms = 30000;
  int32_t share_min_record_lock_duration_ms = 15000;
  int32_t share_max_record_lock_duration_ms = 60000;
  int32_t share_delivery_count_limit = 5;
  int32_t share_min_delivery_count_limit = 2;
  int32_t share_max_delivery_count_limit = 10;
  int32_t share_partition_max_record_locks = 2000;
  int32_t share_min_partition_max_record_locks = 100;
  int32_t share_max_partition_max_record_locks = 4000;
  // KIP-1071's streams groups (Kafka's group.streams.* defaults); the
  // min/max bound what a group's streams.* config may set.
  int32_t streams_session_timeout_ms = 45000;
  int32_t streams_min_session_timeout_ms = 45000;
  int32_t streams_max_session_timeout_ms = 60000;
  int32_t streams_heartbeat_interval_ms = 5000;
  int32_t streams_min_heartbeat_interval_ms = 5000;
  int32_t streams_max_heartbeat_interval_ms = 15000;
  int32_t streams_max_size = INT32_MAX;
  int32_t streams_num_standby_replicas = 0;
  int32_t streams_max_standby_replicas = 2;
  int32_t streams_initial_rebalance_delay_ms = 0;  // Kafka: 3000
  // Read by the heartbeat (its TaskOffsetIntervalMs and AcceptableRecoveryLag)
  // and the status checks (MISSING_CLIENT_TAGS); Kafka 4.4's sticky assignor
  // has no warm-up tasks, so the warm-up keys are checked but not used.
  int32_t streams_task_offset_interval_ms = 60000;
  int32_t streams_min_task_offset_interval_ms = 15000;
  int32_t streams_num_warmup_replicas = 2;
  int32_t streams_max_warmup_replicas = 20;
  int64_t streams_acceptable_recovery_lag = 10000;
  std::vector<std::string> streams_rack_aware_assignment_tags;
  std::vector<std::string> streams_assignors{"sticky"};  // group.streams.assignors, by short name
  // Assignment batching (group.{consumer,streams}.*assignment.interval.ms):
  // checked and described as Kafka's; Skiff computes a consumer or streams
  // group's target assignment on the heartbeat itself.
  int32_t consumer_assignment_interval_ms = 1000;
  int32_t consumer_min_assignment_interval_ms = 0;
  int32_t consumer_max_assignment_interval_ms = 15000;
  int32_t streams_assignment_interval_ms = 1000;
  int32_t streams_min_assignment_interval_ms = 0;
  int32_t streams_max_assignment_interval_ms = 15000;
  // Kafka's internal group keys (the assignor offload flags, the streams
  // task offset interval, warm-up replicas and recovery lag) are described
  // for a group only when it overrides them or the broker's key was set
  // explicitly (Kafka's extractGroupConfigMap): broker key -> its value, for
  // those set.
  std::map<std::string, std::string> explicit_internal_broker_keys;
};

// What group.consumer.migration.policy allows.
bool migration_upgrade_enabled(const std::string& policy);
bool migration_downgrade_enabled(const std::string& policy);

class GroupCoordinator : public txn::TxnOffsetMarkerSink {
 public:
  // Loads the groups and offsets kept in `__consumer_offsets` of `logs`.
  // Throws on corrupt data.
  GroupCoordinator(const GroupConfig& config, storage::LogManager& logs);
  ~GroupCoordinator() override;

  // Answers every waiting JoinGroup/SyncGroup with NOT_COORDINATOR, stops the
  // timers and refuses new group operations. Idempotent.
  void shutdown();

  // ---- membership (group_join.cc, group_membership.cc) ----
  void join_group(JoinGroupParams params, JoinCallback callback);
  void sync_group(SyncGroupParams params, SyncCallback callback);
  ErrorCode heartbeat(const HeartbeatParams& params);
  LeaveGroupResult leave_group(const std::string& group_id, const std::vector<MemberIdentity>& members);

  // ---- offsets (group_offsets.cc) ----
  // One error per offset, in order. Blocks for the fsync of the commit only.
  std::vector<ErrorCode> commit_offsets(const OffsetCommitParams& params);
  // `partitions` empty optional: every committed offset of the group.
  // `require_stable`: a partition with pending transactional offsets
  // answers UNSTABLE_OFFSET_COMMIT instead (OffsetFetch v7+). `member_id` /
  // `member_epoch` (v9+): checked against a consumer group's member.
  OffsetFetchResult fetch_offsets(const std::string& group_id,
                                  const std::optional<std::vector<TopicPartition>>& partitions,
                                  bool require_stable = false, const std::optional<std::string>& member_id = {},
                                  int32_t member_epoch = -1);
  OffsetDeleteResult delete_offsets(const std::string& group_id, const std::vector<TopicPartition>& partitions);
  // The retention job (also run by its timer): returns how many offsets expired.
  int expire_offsets(int64_t now_ms);
  // Removes, durably, every group's committed offsets that `doomed` picks
  // (a deleted topic's); returns how many. Share groups also drop the
  // share-state bookkeeping of topics that no longer exist (by id).
  int delete_offsets_where(const std::function<bool(const TopicPartition&)>& doomed);

  // ---- transactional offsets (group_txn_offsets.cc) ----
  // TxnOffsetCommit: one error per offset, in order; the offsets are pending
  // (durably) once it answers. Blocks for the fsync only.
  std::vector<ErrorCode> commit_txn_offsets(const TxnOffsetCommitParams& params);
  // The marker of `producer_id` on `offsets_partition`: commit or drop its
  // pending offsets in every group of that partition. `done` runs before
  // this returns.
  void on_marker(int64_t producer_id, int16_t producer_epoch, bool commit, int32_t offsets_partition,
                 std::function<void(ErrorCode)> done) override;
  int32_t offsets_partition_for(const std::string& group_id) const;
  // Partitions of __consumer_offsets (the existing topic's count, else the config's).
  int32_t offsets_partitions() const { return store_->partitions(); }
  // FindCoordinator for a group: creates __consumer_offsets if needed, as
  // Kafka does. False (logged) if it cannot be created.
  bool ensure_offsets_topic();

  // ---- the consumer group protocol, KIP-848 (consumer_heartbeat.cc) ----
  ConsumerHeartbeatResult consumer_heartbeat(const ConsumerHeartbeatParams& params);
  ConsumerGroupDescription describe_consumer_group(const std::string& group_id);

  // ---- share groups, KIP-932 (share_heartbeat.cc, share_admin.cc) ----
  // The port to the share coordinator (composition root, before any
  // request; not owned). Null: share partitions are never initialized, so
  // share groups get no partitions.
  void set_share_state(ShareStateInitializer* port) { share_state_.store(port); }
  ShareHeartbeatResult share_heartbeat(const ShareHeartbeatParams& params);
  ShareGroupDescription describe_share_group(const std::string& group_id);
  // DescribeShareGroupOffsets: `topics` none: every initialized partition.
  // `done` may run on another thread (the port's), after this returns.
  void describe_share_offsets(const std::string& group_id,
                              const std::optional<std::vector<ShareOffsetsTopicRequest>>& topics,
                              ShareOffsetsDescriptionCallback done);
  // AlterShareGroupOffsets: an empty (or new) share group only.
  void alter_share_offsets(const std::string& group_id, const std::vector<AlterShareOffsetsTopic>& topics,
                           AlterShareOffsetsCallback done);
  // DeleteShareGroupOffsets: an empty share group only.
  void delete_share_offsets(const std::string& group_id, const std::vector<std::string>& topics,
                            DeleteShareOffsetsCallback done);
  // The group's share configs in effect (its override, else the broker's
  // group.share.* value), for the share-partition side.
  int32_t share_session_timeout_ms(const std::string& group_id) const;
  int32_t share_heartbeat_interval_ms(const std::string& group_id) const;
  int32_t share_assignment_interval_ms(const std::string& group_id) const;
  int32_t share_record_lock_duration_ms(const std::string& group_id) const;
  int32_t share_delivery_count_limit(const std::string& group_id) const;
  int32_t share_partition_max_record_locks(const std::string& group_id) const;
  std::string share_auto_offset_reset(const std::string& group_id) const;  // latest, earliest, by_duration:<ISO8601>
  bool share_read_committed(const std::string& group_id) const;            // share.isolation.level
  bool share_renew_acknowledge_enable(const std::string& group_id) const;
  // KIP-1191: the group's DLQ topic (empty: none) and whether records are copied there.
  std::string share_dlq_topic(const std::string& group_id) const;
  bool share_dlq_copy_record(const std::string& group_id) const;

  // ---- streams groups, KIP-1071 (streams_heartbeat.cc, streams_admin.cc) ----
  // The handler has checked the topology's topic names and the ACLs.
  StreamsHeartbeatResult streams_heartbeat(const StreamsHeartbeatParams& params);
  // GROUP_ID_NOT_FOUND (with Kafka's message) when there is no streams group
  // of that id; `include_description` (v1's IncludeTopologyDescription):
  // the topology description kept from API 93, and its status.
  StreamsGroupDescribed describe_streams_group(const std::string& group_id, bool include_description);
  // API 93: keeps the application's topology description (KIP-1331) for
  // StreamsGroupDescribe and the console.
  StreamsTopologyUpdateResult update_streams_topology_description(
      const protocol::StreamsGroupTopologyDescriptionUpdateRequest& request);
  // The group's streams configs in effect (its override, else the broker's
  // group.streams.* value, within the broker's bounds).
  int32_t streams_session_timeout_ms(const std::string& group_id) const;
  int32_t streams_heartbeat_interval_ms(const std::string& group_id) const;
  int32_t streams_num_standby_replicas(const std::string& group_id) const;
  int32_t streams_initial_rebalance_delay_ms(const std::string& group_id) const;
  int32_t streams_task_offset_interval_ms(const std::string& group_id) const;
  int64_t streams_acceptable_recovery_lag(const std::string& group_id) const;
  std::vector<std::string> streams_rack_aware_assignment_tags(const std::string& group_id) const;
  std::map<std::string, std::string> streams_assignment_configs(const std::string& group_id) const;

  // ---- admin (group_admin.cc) ----
  GroupDescription describe_group(const std::string& group_id);
  // `types_filter`: "classic" / "consumer" (case-insensitive); empty: all.
  std::vector<GroupOverview> list_groups(const std::vector<std::string>& states_filter = {},
                                         const std::vector<std::string>& types_filter = {});
  std::vector<ErrorCode> delete_groups(const std::vector<std::string>& group_ids);
  // Every live group with its committed offsets, by group id (/metrics);
  // read-only, one group's mutex at a time. Empty once shut down.
  std::vector<GroupSnapshot> group_snapshots();

  // ---- per-group dynamic configs (group_dynamic_config.h) ----
  std::map<std::string, std::string> group_config_overrides(const std::string& group_id) const;
  // The groups that have dynamic configs (ListConfigResources' GROUP resources).
  std::vector<std::string> groups_with_configs() const;
  struct GroupConfigChange {
    ErrorCode error = ErrorCode::kNone;
    std::optional<std::string> message;
  };
  // Validates the group's complete new overrides and, unless validate_only,
  // stores them durably; its members see them from their next heartbeat.
  GroupConfigChange alter_group_config(const std::string& group_id, const std::map<std::string, std::string>& next,
                                       bool validate_only);
  // The values in effect for a group: its override, else the broker's,
  // within the broker's min/max.
  int32_t consumer_session_timeout_ms(const std::string& group_id) const;
  int32_t consumer_heartbeat_interval_ms(const std::string& group_id) const;

  const GroupConfig& config() const { return config_; }
  size_t group_count() const;

 private:
  using GroupPtr = std::shared_ptr<GroupMetadata>;

  GroupPtr find(const std::string& group_id) const;
  GroupPtr get_or_create(const std::string& group_id, bool* created = nullptr);
  // Every group in the map (a copy of the pointers, under the map lock).
  std::vector<GroupPtr> all_groups() const;
  // Removes a Dead group from the map (caller holds g.mu; the map lock is a leaf).
  void forget(GroupMetadata& g);
  void persist(GroupMetadata& g);
  std::string new_member_id(const std::string& prefix);
  static int64_t now_ms();

  // Join flow; the caller holds g.mu.
  void join_unknown_member(GroupMetadata& g, JoinGroupParams& p, JoinCallback& cb);
  void join_known_member(GroupMetadata& g, JoinGroupParams& p, JoinCallback& cb);
  void join_static_member(GroupMetadata& g, JoinGroupParams& p, const std::string& new_id, JoinCallback& cb);
  void add_member_and_rebalance(GroupMetadata& g, JoinGroupParams& p, const std::string& member_id, JoinCallback& cb);
  void update_member_and_rebalance(GroupMetadata& g, MemberMetadata& m, JoinGroupParams& p, JoinCallback& cb);
  JoinGroupResult current_join_result(GroupMetadata& g, const MemberMetadata& m, bool skip_assignment);
  void maybe_prepare_rebalance(GroupMetadata& g, const std::string& reason);
  void prepare_rebalance(GroupMetadata& g, const std::string& reason);
  void try_complete_join(GroupMetadata& g);
  void complete_join(GroupMetadata& g);
  void remove_member_and_update_group(GroupMetadata& g, const std::string& member_id, const std::string& reason);
  ErrorCode validate_member(GroupMetadata& g, const std::string& member_id,
                            const std::optional<std::string>& instance_id) const;
  // SyncGroup from the leader: its assignment stored, everyone answered.
  void complete_sync(GroupMetadata& g, std::vector<std::pair<std::string, Bytes>>& assignments);
  // LeaveGroup of one member of a classic group (caller holds g.mu): its
  // error, the member removed (the group rebalances) when it was there.
  ErrorCode leave_classic_member(GroupMetadata& g, const MemberIdentity& who);

  // Timers; each re-checks under the group's mutex.
  void schedule_session_expiry(GroupMetadata& g, MemberMetadata& m);
  void schedule_pending_expiry(GroupMetadata& g, const std::string& member_id, int32_t session_timeout_ms);
  void on_session_check(const std::weak_ptr<GroupMetadata>& weak, const std::string& member_id);
  void on_pending_check(const std::weak_ptr<GroupMetadata>& weak, const std::string& member_id);
  void on_rebalance_timeout(const std::weak_ptr<GroupMetadata>& weak, uint64_t join_epoch);
  void on_initial_delay(const std::weak_ptr<GroupMetadata>& weak, uint64_t join_epoch);
  void on_sync_timeout(const std::weak_ptr<GroupMetadata>& weak, uint64_t sync_epoch);
  void schedule_retention();

  // The consumer protocol (consumer_heartbeat.cc); the caller holds g.mu.
  ConsumerHeartbeatResult consumer_heartbeat_locked(GroupMetadata& g, const ConsumerHeartbeatParams& p,
                                                    std::optional<FlushPoints>& written);
  // Writes the ConsumerGroup* records of what changed since `before` (not flushed).
  std::optional<FlushPoints> persist_consumer(GroupMetadata& g, const ConsumerGroupImage& before);
  void load_consumer_group(GroupMetadata& g, LoadedConsumerGroup& loaded);
  ConsumerHeartbeatResult consumer_leave(GroupMetadata& g, const ConsumerHeartbeatParams& p);
  ConsumerHeartbeatResult consumer_join_or_beat(GroupMetadata& g, const ConsumerHeartbeatParams& p);
  ConsumerGroupMember* consumer_member_for(GroupMetadata& g, const ConsumerHeartbeatParams& p,
                                           ConsumerHeartbeatResult& out);
  void reconcile_consumer_member(GroupMetadata& g, ConsumerGroupMember& m, const consumer::Assignment* owned);
  void schedule_consumer_session(GroupMetadata& g, ConsumerGroupMember& m);
  void on_consumer_session_check(const std::weak_ptr<GroupMetadata>& weak, const std::string& member_id,
                                 uint64_t round);
  // A timer's removal of a member (session, revocation, classic join/sync):
  // the change is written without waiting; the group epoch after it.
  int32_t expire_consumer_member(GroupMetadata& g, const std::string& member_id);
  void await_classic(GroupMetadata& g, ConsumerGroupMember& m, ConsumerGroupMember::ClassicWait what);
  void on_classic_wait_timeout(const std::weak_ptr<GroupMetadata>& weak, const std::string& member_id, uint64_t round);
  void on_consumer_rebalance_timeout(const std::weak_ptr<GroupMetadata>& weak, const std::string& member_id,
                                     uint64_t round);
  // Online migration between the protocols (group_migration.cc); the caller holds g.mu.
  // A ConsumerGroupHeartbeat joining a non-empty classic group: converted
  // (nothing returned) or refused with Kafka's error.
  std::optional<ConsumerHeartbeatResult> upgrade_classic_group(GroupMetadata& g, const ConsumerHeartbeatParams& p);
  // Writes the records of what changed since `before`; when the last
  // consumer-protocol member went and classic members remain, converts the
  // group back to a classic one first (Kafka's online downgrade).
  std::optional<FlushPoints> write_consumer_change(GroupMetadata& g, const ConsumerGroupImage& before);
  bool should_downgrade(const GroupMetadata& g, const ConsumerGroupImage& before) const;
  std::optional<FlushPoints> downgrade_to_classic(GroupMetadata& g, const ConsumerGroupImage& before);
  // Classic members of a consumer group (consumer_classic_members.cc); the caller holds g.mu.
  JoinGroupResult classic_join_consumer_group(GroupMetadata& g, JoinGroupParams& p,
                                              std::optional<FlushPoints>& written);
  SyncGroupResult classic_sync_consumer_group(GroupMetadata& g, const SyncGroupParams& p);
  ErrorCode classic_heartbeat_consumer_group(GroupMetadata& g, const HeartbeatParams& p);
  LeaveGroupResult classic_leave_consumer_group(GroupMetadata& g, const std::vector<MemberIdentity>& members,
                                                std::optional<FlushPoints>& written);
  // The classic member `member_id` of a consumer group, or null with the error.
  ConsumerGroupMember* classic_member(GroupMetadata& g, const std::string& member_id,
                                      const std::optional<std::string>& instance_id, ErrorCode& error);
  // Share groups (share_heartbeat.cc, share_admin.cc); the caller holds g.mu.
  ShareHeartbeatResult share_heartbeat_locked(GroupMetadata& g, const ShareHeartbeatParams& p,
                                              std::optional<FlushPoints>& written,
                                              std::vector<ShareStateStart>& to_initialize, int32_t& state_epoch);
  ShareHeartbeatResult share_join_or_beat(GroupMetadata& g, const ShareHeartbeatParams& p);
  // Bumps the group epoch on a change (`bump`: the member's subscription;
  // the subscribed topics' metadata; initialized partitions not assigned
  // yet) and recomputes the target while its epoch is behind, at most every
  // share.assignment.interval.ms.
  void refresh_share_target(ShareGroup& sg, const ShareHeartbeatParams& p, bool bump);
  std::optional<FlushPoints> persist_share(GroupMetadata& g, const ShareGroupImage& before);
  void load_share_group(GroupMetadata& g, LoadedShareGroup& loaded);
  void schedule_share_session(GroupMetadata& g, ShareGroupMember& m);
  void on_share_session_check(const std::weak_ptr<GroupMetadata>& weak, const std::string& member_id, uint64_t round);
  // Kafka's shareGroupFenceMember; the group epoch bumps.
  void fence_share_member(GroupMetadata& g, const std::string& member_id);
  // Kafka's maybeCreateInitializeShareGroupStateRequest: the subscribed
  // partitions whose state is neither initialized nor being initialized
  // (recently) become `initializing`; what to ask the port.
  std::vector<ShareStateStart> share_partitions_to_initialize(ShareGroup& sg);
  // Asks the port; the answer moves the partitions to initialized (or back).
  void initialize_share_state(const std::string& group_id, int32_t state_epoch, std::vector<ShareStateStart> parts,
                              std::function<void(std::vector<ShareStateResult>)> then = {});
  void on_share_state_initialized(const std::string& group_id, const std::vector<ShareStateResult>& results);
  // Share-partition state to delete with a deleted share group (DeleteGroups).
  std::vector<SharePartitionId> share_state_partitions(const ShareGroup& sg) const;
  int64_t partition_end_offset(const std::string& topic, int32_t partition) const;
  // Kafka's maybeCleanupShareGroupState: every share group forgets the
  // topics whose id the broker no longer has. Returns the groups changed.
  int forget_deleted_share_topics();

  // The share-group offsets admin APIs (share_admin.cc); no group lock held
  // on entry (complete_share_offsets_delete takes the group's).
  // The error of an admin API refused as a whole (shutting down, no port), else NONE.
  ErrorCode share_admin_error(const ShareStateInitializer* port) const;
  // The port's summaries as DescribeShareGroupOffsets topics, with each
  // partition's lag from its end offset.
  std::vector<ShareTopicOffsets> share_topic_offsets(const std::vector<ShareStateSummary>& results,
                                                     const std::map<Uuid, std::string>& names) const;
  SharePartitionOffset share_partition_offset(const ShareStateSummary& s, const std::string& topic) const;
  // Kafka's completeDeleteShareGroupOffsets: the topics the port deleted
  // (not `failed`) are no longer `deleting`, durably.
  void complete_share_offsets_delete(const std::string& group_id, const std::map<Uuid, std::string>& deleting,
                                     const std::map<Uuid, const ShareStateResult*>& failed);

  // Streams groups (streams_heartbeat.cc, streams_reconcile.cc); the caller holds g.mu.
  StreamsHeartbeatResult streams_heartbeat_locked(GroupMetadata& g, const StreamsHeartbeatParams& p,
                                                  std::optional<FlushPoints>& written);
  StreamsHeartbeatResult streams_join_or_beat(GroupMetadata& g, const StreamsHeartbeatParams& p);
  // After every check passed: the member, topology and configuration
  // applied, then the epoch, the target and the member's reconciliation.
  StreamsHeartbeatResult streams_apply_heartbeat(GroupMetadata& g, const StreamsHeartbeatParams& p,
                                                 std::optional<streams::Topology> initial,
                                                 std::map<std::string, consumer::TopicMetadata> topics, int64_t hash,
                                                 streams::ConfiguredTopology configured);
  // Bumps the group epoch when `bump`, or the topics' hash, the validated
  // topology epoch or the assignment configs changed.
  void streams_bump_epoch(GroupMetadata& g, int64_t hash, bool bump);
  // The first member of an empty group starts the initial rebalance delay.
  void maybe_delay_streams_assignment(GroupMetadata& g);
  void on_streams_initial_delay(const std::weak_ptr<GroupMetadata>& weak);
  // The sticky assignor at the group epoch; false (logged) when it fails.
  bool compute_streams_target(GroupMetadata& g);
  StreamsHeartbeatResult streams_reconcile_and_answer(
      GroupMetadata& g, const StreamsHeartbeatParams& p, StreamsGroupMember& m, const StreamsGroupMember& old,
      std::vector<protocol::StreamsGroupHeartbeatResponse::Status> statuses);
  StreamsHeartbeatResult streams_leave(GroupMetadata& g, const protocol::StreamsGroupHeartbeatRequest& req);
  // Removes the member and bumps the group epoch (Kafka's streamsGroupFenceMember).
  void fence_streams_member(GroupMetadata& g, const std::string& member_id, const char* why);
  std::optional<FlushPoints> persist_streams(GroupMetadata& g, const StreamsGroupImage& before);
  void load_streams_group(GroupMetadata& g, LoadedStreamsGroup& loaded);
  void schedule_streams_session(GroupMetadata& g, StreamsGroupMember& m);
  void on_streams_session_check(const std::weak_ptr<GroupMetadata>& weak, const std::string& member_id, uint64_t round);
  void schedule_streams_revocation(GroupMetadata& g, StreamsGroupMember& m);
  void on_streams_revocation_timeout(const std::weak_ptr<GroupMetadata>& weak, const std::string& member_id,
                                     uint64_t round, int32_t epoch);

  // DeleteGroups: the records that end a consumer, streams or share group
  // (caller holds g.mu); share groups' partitions to delete from the share coordinator.
  void write_modern_tombstones(GroupMetadata& g, FlushPoints& last,
                               std::vector<std::pair<std::string, std::vector<SharePartitionId>>>& share_state);

  using OffsetPredicate = std::function<bool(const GroupMetadata&, const TopicPartition&, const OffsetAndMetadata&)>;
  // `with_pending`: also drops pending transactional offsets of the doomed
  // partitions; otherwise a partition with pending offsets is kept.
  int remove_offsets(const OffsetPredicate& doomed, int64_t now, bool durable, bool with_pending);
  ErrorCode modern_fetch_check(GroupMetadata& g, const std::optional<std::string>& member_id,
                               int32_t member_epoch) const;
  // OffsetCommit's checks of the group (Kafka's validateOffsetCommit).
  ErrorCode validate_commit(GroupMetadata& g, const OffsetCommitParams& p) const;
  // Flushes each committed partition's log up to its committed offset (at
  // most its end); per offset, kNone or KAFKA_STORAGE_ERROR.
  std::vector<ErrorCode> flush_committed_data(
      const std::vector<std::pair<TopicPartition, OffsetAndMetadata>>& offsets) const;
  // TxnOffsetCommit's checks of the group (Kafka's validateOffsetCommit, transactional).
  ErrorCode validate_txn_commit(GroupMetadata& g, const TxnOffsetCommitParams& p) const;
  // A written marker's effect on one group's memory (the caller holds
  // txn_mu_ and g.mu), as OffsetsReplay::apply_marker replays it.
  void end_txn_in_group(GroupMetadata& g, int64_t producer_id, bool commit);
  // A plain commit of `tps` supersedes their pending offsets (caller holds
  // g.mu). `before_order`: only pending offsets written before that one.
  void supersede(GroupMetadata& g, const std::vector<TopicPartition>& tps, int64_t before_order = INT64_MAX);
  std::optional<FlushPoints> write_pending_offsets(GroupMetadata& g, const TxnOffsetCommitParams& p,
                                                   std::vector<ErrorCode>& errors);
  std::optional<FlushPoints> write_commit(GroupMetadata& g,
                                          const std::vector<std::pair<TopicPartition, OffsetAndMetadata>>& valid);
  void load(std::map<std::string, LoadedGroup>& loaded);
  static std::vector<TopicPartition> take_doomed(GroupMetadata& g, const OffsetPredicate& doomed_offset,
                                                 bool with_pending);

  const GroupConfig config_;
  // The broker's topics by name: a loaded consumer group's subscribed topics
  // are resolved with it, so the first heartbeat after a restart sees no change.
  TopicResolver topics_;
  std::unique_ptr<GroupDynamicConfigs> group_configs_;
  std::unique_ptr<OffsetsTopic> store_;
  storage::LogManager& logs_;
  std::atomic<ShareStateInitializer*> share_state_{nullptr};
  mutable std::shared_mutex map_mu_;
  std::unordered_map<std::string, GroupPtr> groups_;
  std::atomic<bool> shutting_down_{false};
  // Transactional offsets: the last producer epoch seen per (offsets
  // partition, producer id), as the partition's producer state would keep
  // it, and the next pending write order.
  std::mutex txn_mu_;
  std::map<std::pair<int32_t, int64_t>, int16_t> producer_epochs_;
  int64_t next_pending_order_ = 1;
  std::mutex id_mu_;
  uint64_t id_state_[2];
  coordinator::TimerQueue timers_;  // last: its thread stops first
};

}  // namespace skiff::group
