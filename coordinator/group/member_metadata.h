// MemberMetadata: one member of a classic group (Kafka's MemberMetadata):
// its identity, timeouts, the protocols it supports, its assignment, and the
// JoinGroup / SyncGroup responses it is waiting for.
//
// Threads: owned by its GroupMetadata and guarded by the group's mutex.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "coordinator/group/group_types.h"

namespace skiff::group {

struct MemberMetadata {
  using Clock = std::chrono::steady_clock;

  std::string member_id;
  std::optional<std::string> group_instance_id;  // static membership (KIP-345)
  std::string client_id;
  std::string client_host;
  int32_t rebalance_timeout_ms = 0;
  int32_t session_timeout_ms = 0;
  std::string protocol_type;
  std::vector<Protocol> protocols;  // in the member's order of preference
  Bytes assignment;

  JoinCallback awaiting_join;  // set while its JoinGroup waits for the rebalance
  SyncCallback awaiting_sync;  // set while its SyncGroup waits for the leader

  Clock::time_point heartbeat_deadline{};  // session expiry
  bool expiry_timer_armed = false;         // one session timer at a time

  bool is_awaiting_join() const { return static_cast<bool>(awaiting_join); }
  bool is_awaiting_sync() const { return static_cast<bool>(awaiting_sync); }
  bool is_static() const { return group_instance_id.has_value(); }
  // Answers its waiting JoinGroup and SyncGroup, if any, with `e` alone.
  void answer_waiting(ErrorCode e) {
    if (auto cb = std::exchange(awaiting_join, nullptr)) cb(join_error(e, member_id));
    if (auto cb = std::exchange(awaiting_sync, nullptr)) cb(sync_error(e));
  }

  // The metadata this member gave for `protocol` (empty if none).
  const Bytes* metadata_for(const std::string& protocol) const {
    for (const auto& p : protocols)
      if (p.name == protocol) return &p.metadata;
    return nullptr;
  }
  // Same protocols, same metadata, same order: a rejoin that changes nothing.
  bool matches(const std::vector<Protocol>& other) const {
    if (other.size() != protocols.size()) return false;
    for (size_t i = 0; i < other.size(); ++i)
      if (other[i].name != protocols[i].name || other[i].metadata != protocols[i].metadata) return false;
    return true;
  }
};

}  // namespace skiff::group
