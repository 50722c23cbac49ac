#include "api/handlers/read_share_group_state_summary_handler.h"

#include "api/authorize.h"
#include "api/handlers/share_group_state_support.h"
#include "coordinator/share/share_coordinator.h"

namespace skiff::api {

// CLUSTER_ACTION (KafkaApis.handleReadShareGroupStateSummaryRequest); then
// ShareCoordinatorService.readStateSummary's checks.
void ReadShareGroupStateSummaryHandler::handle(ApiRequest& request, protocol::ReadShareGroupStateSummaryRequest& body,
                                               Responder& out) {
  if (!authorized_cluster(services_, request, AclOperation::kClusterAction)) {
    out.send(share_state::global_error<protocol::ReadShareGroupStateSummaryResponse>(
        body, ErrorCode::kClusterAuthorizationFailed, share_state::kClusterAuthorizationFailed));
    return;
  }
  if (!services_.share_coordinator) {
    out.send(share_state::global_error<protocol::ReadShareGroupStateSummaryResponse>(
        body, ErrorCode::kCoordinatorNotAvailable, share_state::kNotAvailable));
    return;
  }
  if (body.group_id.empty()) {  // Kafka: an empty answer
    out.send(protocol::ReadShareGroupStateSummaryResponse{});
    return;
  }
  if (body.topics.empty()) {
    out.send(protocol::ReadShareGroupStateSummaryResponse{});
    return;
  }
  if (share_state::any_topic_without_partitions(body)) {
    out.send(protocol::ReadShareGroupStateSummaryResponse{});
    return;
  }
  auto gather = std::make_shared<share_state::Gather<protocol::ReadShareGroupStateSummaryResponse>>(
      share_state::skeleton<protocol::ReadShareGroupStateSummaryResponse>(body), share_state::partition_count(body),
      out);
  if (share_state::partition_count(body) == 0) {
    out.send(share_state::skeleton<protocol::ReadShareGroupStateSummaryResponse>(body));
    return;
  }
  auto& c = *services_.share_coordinator;
  for (size_t t = 0; t < body.topics.size(); ++t) {
    const auto& topic = body.topics[t];
    for (size_t i = 0; i < topic.partitions.size(); ++i) {
      const auto& p = topic.partitions[i];
      const sharecoord::Key key{body.group_id, topic.topic_id, p.partition};
      c.read_summary(key, [gather, t, i](ErrorCode e, const std::string& m, const sharecoord::ShareSummary& s) {
        auto& slot = gather->slot(t, i);
        share_state::set_error(slot, e, m);
        if (e == ErrorCode::kNone) {
          slot.state_epoch = s.state_epoch;
          slot.leader_epoch = s.leader_epoch;
          slot.start_offset = s.start_offset;
          slot.delivery_complete_count = s.delivery_complete_count;
        }
        gather->done_one();
      });
    }
  }
}

protocol::ReadShareGroupStateSummaryResponse ReadShareGroupStateSummaryHandler::error_response(
    const protocol::ReadShareGroupStateSummaryRequest& body, ErrorCode error) {
  return share_state::error_codes<protocol::ReadShareGroupStateSummaryResponse>(body, error);
}

}  // namespace skiff::api
