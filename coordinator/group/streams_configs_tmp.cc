// TEMP (dropped when the streams API branch lands): the broker's defaults.
#include "coordinator/group/group_coordinator.h"

namespace skiff::group {
int32_t GroupCoordinator::streams_session_timeout_ms(const std::string&) const {
  return config_.streams_session_timeout_ms;
}
int32_t GroupCoordinator::streams_heartbeat_interval_ms(const std::string&) const {
  return config_.streams_heartbeat_interval_ms;
}
int32_t GroupCoordinator::streams_num_standby_replicas(const std::string&) const {
  return config_.streams_num_standby_replicas;
}
int32_t GroupCoordinator::streams_initial_rebalance_delay_ms(const std::string&) const {
  return config_.streams_initial_rebalance_delay_ms;
}
}  // namespace skiff::group
