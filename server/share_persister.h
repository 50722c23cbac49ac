// CoordinatorStatePersister: share::StatePersister (the broker side's port,
// share/state_persister.h) over the share coordinator in this process
// (coordinator/share/share_coordinator.h) — Kafka's DefaultStatePersister,
// minus the network hop of a multi-node cluster: ReadShareGroupState and
// WriteShareGroupState for one share partition, field for field.
//
// Threads: any thread; `done` runs on the share coordinator's thread (or at
// once with COORDINATOR_NOT_AVAILABLE after it stopped).
#pragma once

#include "coordinator/share/share_coordinator.h"
#include "share/state_persister.h"

namespace skiff::server {

class CoordinatorStatePersister final : public share::StatePersister {
 public:
  explicit CoordinatorStatePersister(sharecoord::ShareCoordinator& coordinator) : coordinator_(coordinator) {}

  void read(const share::PartitionRef& ref, int32_t leader_epoch,
            std::function<void(ErrorCode, std::string, share::PersistedState)> done) override;
  void write(const share::PartitionRef& ref, const share::PersistedState& update,
             std::function<void(ErrorCode, std::string)> done) override;

 private:
  sharecoord::ShareCoordinator& coordinator_;
};

}  // namespace skiff::server
