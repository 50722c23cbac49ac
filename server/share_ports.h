// The ports that join the three parts of share groups (KIP-932) in this
// process — the composition root's glue, each a few lines over the part it
// adapts:
//   ShareStateOverCoordinator  group::ShareStateInitializer (the group
//       coordinator's calls: initialize / read summary / delete the state of
//       a share group's partitions) over the share coordinator, fanned out
//       per partition and gathered into one answer;
//   GroupShareConfig           share::ShareGroupConfigPort (what a share
//       partition reads of its group's configs) over the group coordinator's
//       getters (the group's override, else the broker's, clamped);
//   share_manager_ports()      the SharePartitionManager's clock, timers,
//       offset lookups and purgatory wake-ups;
//   ShareSessionsOnDisconnect  network::ConnectionListener: a closed
//       connection ends the share sessions opened on it, releasing their
//       records at once (Kafka's ConnectionDisconnectListener).
// CoordinatorStatePersister (server/share_persister.h) is the fourth.
//
// Threads: any thread; callbacks run on the share coordinator's thread or
// the timer thread, as the adapted part says.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "api/purgatory.h"
#include "coordinator/group/group_coordinator.h"
#include "coordinator/group/share_state_port.h"
#include "coordinator/runtime/timer_queue.h"
#include "coordinator/share/share_coordinator.h"
#include "log/log_manager.h"
#include "network/request.h"
#include "share/share_partition_manager.h"

namespace skiff::server {

class ShareStateOverCoordinator final : public group::ShareStateInitializer {
 public:
  explicit ShareStateOverCoordinator(sharecoord::ShareCoordinator& coordinator) : coordinator_(coordinator) {}

  void initialize(const std::string& group_id, int32_t state_epoch, std::vector<group::ShareStateStart> partitions,
                  ResultsCallback done) override;
  void read_summary(const std::string& group_id, std::vector<group::SharePartitionId> partitions,
                    SummaryCallback done) override;
  void remove(const std::string& group_id, std::vector<group::SharePartitionId> partitions,
              ResultsCallback done) override;

 private:
  sharecoord::ShareCoordinator& coordinator_;
};

class GroupShareConfig final : public share::ShareGroupConfigPort {
 public:
  explicit GroupShareConfig(const group::GroupCoordinator& groups) : groups_(groups) {}
  share::ShareGroupSettings settings(const std::string& group_id) const override;

 private:
  const group::GroupCoordinator& groups_;
};

class ShareSessionsOnDisconnect final : public network::ConnectionListener {
 public:
  explicit ShareSessionsOnDisconnect(share::SharePartitionManager& shares) : shares_(shares) {}
  void on_connection_closed(uint64_t connection_id) override { shares_.on_disconnect(std::to_string(connection_id)); }

 private:
  share::SharePartitionManager& shares_;
};

// java.time.Duration.parse's PnDTnHnMn.nS in milliseconds (what
// share.auto.offset.reset's by_duration:<duration> names); nullopt when it
// is not one.
std::optional<int64_t> iso8601_duration_ms(std::string_view text);

share::SharePartitionManager::Ports share_manager_ports(storage::LogManager& logs, coordinator::TimerQueue& timers,
                                                        api::Purgatory* fetch_purgatory);

}  // namespace skiff::server
