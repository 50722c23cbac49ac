#include "api/handlers/read_share_group_state_summary_handler.h"

#include "api/authorize.h"
#include "api/handlers/share_group_state_support.h"
#include "coordinator/share/share_coordinator.h"

namespace skiff::api {

// CLUSTER_ACTION (KafkaApis.handleReadShareGroupStateSummaryRequest); then
// ShareCoordinatorService.readStateSummary's checks.
void ReadShareGroupStateSummaryHandler::handle(ApiRequest& request, protocol::ReadShareGroupStateSummaryRequest& body,
                                               Responder& out) {
  share_state::serve<protocol::ReadShareGroupStateSummaryResponse>(
      services_, request, body, out, {.coordinator_first = true},
      [](sharecoord::ShareCoordinator& c, const sharecoord::Key& key, const auto& /*p*/, auto slot_done) {
        c.read_summary(key, [slot_done](ErrorCode e, const std::string& m, const sharecoord::ShareSummary& s) {
          slot_done([&](auto& slot) {
            share_state::set_error(slot, e, m);
            if (e != ErrorCode::kNone) return;
            slot.state_epoch = s.state_epoch;
            slot.leader_epoch = s.leader_epoch;
            slot.start_offset = s.start_offset;
            slot.delivery_complete_count = s.delivery_complete_count;
          });
        });
      });
}

protocol::ReadShareGroupStateSummaryResponse ReadShareGroupStateSummaryHandler::error_response(
    const protocol::ReadShareGroupStateSummaryRequest& body, ErrorCode error) {
  return share_state::error_codes<protocol::ReadShareGroupStateSummaryResponse>(body, error);
}

}  // namespace skiff::api
