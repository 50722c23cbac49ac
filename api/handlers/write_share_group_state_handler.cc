#include "api/handlers/write_share_group_state_handler.h"

#include "api/authorize.h"
#include "api/handlers/share_group_state_support.h"
#include "coordinator/share/share_coordinator.h"

namespace skiff::api {

// CLUSTER_ACTION (KafkaApis.handleWriteShareGroupStateRequest); then
// ShareCoordinatorService.writeState's checks.
void WriteShareGroupStateHandler::handle(ApiRequest& request, protocol::WriteShareGroupStateRequest& body,
                                         Responder& out) {
  share_state::serve<protocol::WriteShareGroupStateResponse>(
      services_, request, body, out, {.coordinator_first = false},
      [](sharecoord::ShareCoordinator& c, const sharecoord::Key& key, const auto& p, auto slot_done) {
        std::vector<sharecoord::StateBatch> batches;
        batches.reserve(p.state_batches.size());
        for (const auto& b : p.state_batches)
          batches.push_back({b.first_offset, b.last_offset, b.delivery_state, b.delivery_count});
        c.write(key, p.state_epoch, p.leader_epoch, p.start_offset, p.delivery_complete_count, std::move(batches),
                [slot_done](ErrorCode e, const std::string& m) {
                  slot_done([&](auto& slot) { share_state::set_error(slot, e, m); });
                });
      });
}

protocol::WriteShareGroupStateResponse WriteShareGroupStateHandler::error_response(
    const protocol::WriteShareGroupStateRequest& body, ErrorCode error) {
  return share_state::error_codes<protocol::WriteShareGroupStateResponse>(body, error);
}

}  // namespace skiff::api
