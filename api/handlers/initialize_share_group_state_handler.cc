#include "api/handlers/initialize_share_group_state_handler.h"

#include "api/authorize.h"
#include "api/handlers/share_group_state_support.h"
#include "coordinator/share/share_coordinator.h"

namespace skiff::api {

// CLUSTER_ACTION (KafkaApis.handleInitializeShareGroupStateRequest); then
// ShareCoordinatorService.initializeState's checks.
void InitializeShareGroupStateHandler::handle(ApiRequest& request, protocol::InitializeShareGroupStateRequest& body,
                                              Responder& out) {
  share_state::serve<protocol::InitializeShareGroupStateResponse>(
      services_, request, body, out, {.coordinator_first = true, .empty_if_partitionless_topic = false},
      [](sharecoord::ShareCoordinator& c, const sharecoord::Key& key, const auto& p, auto slot_done) {
        c.initialize(key, p.state_epoch, p.start_offset, [slot_done](ErrorCode e, const std::string& m) {
          slot_done([&](auto& slot) { share_state::set_error(slot, e, m); });
        });
      });
}

protocol::InitializeShareGroupStateResponse InitializeShareGroupStateHandler::error_response(
    const protocol::InitializeShareGroupStateRequest& body, ErrorCode error) {
  return share_state::error_codes<protocol::InitializeShareGroupStateResponse>(body, error);
}

}  // namespace skiff::api
