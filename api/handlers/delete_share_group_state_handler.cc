#include "api/handlers/delete_share_group_state_handler.h"

#include "api/authorize.h"
#include "api/handlers/share_group_state_support.h"
#include "coordinator/share/share_coordinator.h"

namespace skiff::api {

// CLUSTER_ACTION (KafkaApis.handleDeleteShareGroupStateRequest); then
// ShareCoordinatorService.deleteState's checks.
void DeleteShareGroupStateHandler::handle(ApiRequest& request, protocol::DeleteShareGroupStateRequest& body,
                                          Responder& out) {
  share_state::serve<protocol::DeleteShareGroupStateResponse>(
      services_, request, body, out, {.coordinator_first = true},
      [](sharecoord::ShareCoordinator& c, const sharecoord::Key& key, const auto& /*p*/, auto slot_done) {
        c.remove(key, [slot_done](ErrorCode e, const std::string& m) {
          slot_done([&](auto& slot) { share_state::set_error(slot, e, m); });
        });
      });
}

protocol::DeleteShareGroupStateResponse DeleteShareGroupStateHandler::error_response(
    const protocol::DeleteShareGroupStateRequest& body, ErrorCode error) {
  return share_state::error_codes<protocol::DeleteShareGroupStateResponse>(body, error);
}

}  // namespace skiff::api
