#include "api/handlers/read_share_group_state_handler.h"

#include "api/authorize.h"
#include "api/handlers/share_group_state_support.h"
#include "coordinator/share/share_coordinator.h"

namespace skiff::api {

// CLUSTER_ACTION (KafkaApis.handleReadShareGroupStateRequest); then
// ShareCoordinatorService.readState's checks.
void ReadShareGroupStateHandler::handle(ApiRequest& request, protocol::ReadShareGroupStateRequest& body,
                                        Responder& out) {
  share_state::serve<protocol::ReadShareGroupStateResponse>(
      services_, request, body, out, {.coordinator_first = false},
      [](sharecoord::ShareCoordinator& c, const sharecoord::Key& key, const auto& p, auto slot_done) {
        c.read(key, p.leader_epoch, [slot_done](ErrorCode e, const std::string& m, const sharecoord::ShareState& s) {
          slot_done([&](auto& slot) {
            share_state::set_error(slot, e, m);
            if (e != ErrorCode::kNone) return;
            slot.state_epoch = s.state_epoch;
            slot.start_offset = s.start_offset;
            for (const auto& b : s.batches)
              slot.state_batches.push_back({b.first_offset, b.last_offset, b.delivery_state, b.delivery_count, {}});
          });
        });
      });
}

protocol::ReadShareGroupStateResponse ReadShareGroupStateHandler::error_response(
    const protocol::ReadShareGroupStateRequest& body, ErrorCode error) {
  return share_state::error_codes<protocol::ReadShareGroupStateResponse>(body, error);
}

}  // namespace skiff::api
