// GroupMember: a subscribed v2 consumer instance's membership of its
// consumer group, as a Kafka consumer's classic group protocol runs it:
// JoinGroup (protocol type "consumer", the "range" assignor; a first
// MEMBER_ID_REQUIRED answered by joining again with the id given), the
// leader computing every member's assignment (consumer_assignor.h), then
// SyncGroup; Heartbeat while a member; LeaveGroup when the instance
// unsubscribes, is deleted or expires. Eager rebalancing: a rejoin gives up
// every partition first.
// The instance joins from its GET /records (as a Kafka consumer joins from
// poll()); the manager's timer thread heartbeats, and a heartbeat that
// answers REBALANCE_IN_PROGRESS (or that the member is unknown) marks the
// member for rejoining at the next poll.
// Threads: join and leave on the instance's worker thread (the instance
// serializes them), heartbeat_if_due on the timer thread; the state is
// guarded by a mutex never held across a Kafka call.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "apps/rest_proxy/consumer_positions.h"
#include "client/in_process_client.h"

namespace skiff::restproxy {

class GroupMember {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr int32_t kSessionTimeoutMs = 30000;
  static constexpr int32_t kRebalanceTimeoutMs = 8000;  // under the in-process client's answer wait
  static constexpr auto kHeartbeatInterval = std::chrono::milliseconds(3000);

  explicit GroupMember(std::string group) : group_(std::move(group)) {}

  // Joins (or rejoins) subscribed to `topics`: the partitions this member
  // is assigned. Blocks while the group rebalances (up to the rebalance
  // timeout). Throws RestError on a Kafka error.
  std::set<TopicPartition> join(client::InProcessClient& kafka, const std::vector<std::string>& topics);
  // One heartbeat when one is due (not while joining).
  void heartbeat_if_due(client::InProcessClient& kafka, Clock::time_point now);
  // Leaves the group (errors ignored: the member expires anyway).
  void leave(client::InProcessClient& kafka);

  bool needs_join() const;
  // What an OffsetCommit of this member carries: generation and member id.
  std::pair<int32_t, std::string> commit_identity() const;

 private:
  struct Joined {
    int32_t generation = -1;
    std::string member_id, leader, protocol;
    std::vector<std::pair<std::string, std::vector<uint8_t>>> members;  // id, subscription
  };
  Joined send_join(client::InProcessClient& kafka, const std::vector<std::string>& topics);
  // nullopt: the group rebalances again (join again).
  std::optional<std::set<TopicPartition>> sync(client::InProcessClient& kafka, const Joined& joined);

  const std::string group_;
  mutable std::mutex mu_;
  std::string member_id_;
  int32_t generation_ = -1;
  bool member_ = false;   // joined and synced, not told to rejoin
  bool joining_ = false;  // a join in flight: no heartbeats
  Clock::time_point last_heartbeat_{};
};

}  // namespace skiff::restproxy
