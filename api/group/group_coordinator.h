// GroupCoordinator: Kafka's classic group protocol for every group on this
// node (it is the coordinator of all of them): JoinGroup, SyncGroup,
// Heartbeat and LeaveGroup drive each group's state machine (GroupMetadata);
// OffsetCommit / OffsetFetch / OffsetDelete keep committed offsets, durable in
// the OffsetStore; DescribeGroups / ListGroups / DeleteGroups for admins.
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
// state is loaded synchronously at construction, before any request is
// served, so COORDINATOR_LOAD_IN_PROGRESS is never needed.
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "api/group/group_metadata.h"
#include "api/group/group_types.h"
#include "api/group/offset_store.h"
#include "api/group/timer_queue.h"

namespace skiff::api::group {

struct GroupConfig {
  int32_t min_session_timeout_ms = 6000;
  int32_t max_session_timeout_ms = 1800000;
  int32_t max_size = INT32_MAX;
  int32_t initial_rebalance_delay_ms = 0;
  int64_t offsets_retention_ms = 7LL * 24 * 3600 * 1000;  // -1: never
  int64_t offsets_retention_check_interval_ms = 600000;
  int32_t offset_metadata_max_bytes = 4096;
};

class GroupCoordinator {
 public:
  // Loads the groups and offsets kept in `store_file`. Throws on an unusable file.
  GroupCoordinator(GroupConfig config, std::filesystem::path store_file);
  ~GroupCoordinator();

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
  OffsetFetchResult fetch_offsets(const std::string& group_id,
                                  const std::optional<std::vector<TopicPartition>>& partitions);
  OffsetDeleteResult delete_offsets(const std::string& group_id, const std::vector<TopicPartition>& partitions);
  // The retention job (also run by its timer): returns how many offsets expired.
  int expire_offsets(int64_t now_ms);
  // Removes, durably, every group's committed offsets that `doomed` picks
  // (a deleted topic's); returns how many.
  int delete_offsets_where(const std::function<bool(const TopicPartition&)>& doomed);

  // ---- admin (group_admin.cc) ----
  GroupDescription describe_group(const std::string& group_id);
  std::vector<GroupOverview> list_groups(const std::vector<std::string>& states_filter = {});
  std::vector<ErrorCode> delete_groups(const std::vector<std::string>& group_ids);

  const GroupConfig& config() const { return config_; }
  size_t group_count() const;

 private:
  using GroupPtr = std::shared_ptr<GroupMetadata>;

  GroupPtr find(const std::string& group_id) const;
  GroupPtr get_or_create(const std::string& group_id, bool* created = nullptr);
  // Removes a Dead group from the map (caller holds g.mu; the map lock is a leaf).
  void forget(GroupMetadata& g);
  void persist(GroupMetadata& g);
  std::string new_member_id(const std::string& prefix);
  static int64_t now_ms();

  // Join flow; the caller holds g.mu.
  void join_unknown_member(GroupMetadata& g, JoinGroupParams& p, JoinCallback& cb);
  void join_known_member(GroupMetadata& g, JoinGroupParams& p, JoinCallback& cb);
  void join_static_member(GroupMetadata& g, JoinGroupParams& p, const std::string& new_id, JoinCallback& cb);
  void add_member_and_rebalance(GroupMetadata& g, JoinGroupParams& p, const std::string& member_id,
                                JoinCallback& cb);
  void update_member_and_rebalance(GroupMetadata& g, MemberMetadata& m, JoinGroupParams& p, JoinCallback& cb);
  JoinGroupResult current_join_result(GroupMetadata& g, const MemberMetadata& m, bool skip_assignment);
  void maybe_prepare_rebalance(GroupMetadata& g, const std::string& reason);
  void prepare_rebalance(GroupMetadata& g, const std::string& reason);
  void try_complete_join(GroupMetadata& g);
  void complete_join(GroupMetadata& g);
  void remove_member_and_update_group(GroupMetadata& g, const std::string& member_id, const std::string& reason);
  ErrorCode validate_member(GroupMetadata& g, const std::string& member_id,
                            const std::optional<std::string>& instance_id) const;

  // Timers; each re-checks under the group's mutex.
  void schedule_session_expiry(GroupMetadata& g, MemberMetadata& m);
  void schedule_pending_expiry(GroupMetadata& g, const std::string& member_id, int32_t session_timeout_ms);
  void on_session_check(const std::weak_ptr<GroupMetadata>& weak, const std::string& member_id);
  void on_pending_check(const std::weak_ptr<GroupMetadata>& weak, const std::string& member_id);
  void on_rebalance_timeout(const std::weak_ptr<GroupMetadata>& weak, uint64_t join_epoch);
  void on_initial_delay(const std::weak_ptr<GroupMetadata>& weak, uint64_t join_epoch);
  void on_sync_timeout(const std::weak_ptr<GroupMetadata>& weak, uint64_t sync_epoch);
  void schedule_retention();
  using OffsetPredicate =
      std::function<bool(const GroupMetadata&, const TopicPartition&, const OffsetAndMetadata&)>;
  int remove_offsets(const OffsetPredicate& doomed, int64_t now, bool durable);

  const GroupConfig config_;
  std::unique_ptr<OffsetStore> store_;
  mutable std::shared_mutex map_mu_;
  std::unordered_map<std::string, GroupPtr> groups_;
  std::atomic<bool> shutting_down_{false};
  std::mutex id_mu_;
  uint64_t id_state_[2];
  TimerQueue timers_;  // last: its thread stops first
};

}  // namespace skiff::api::group
