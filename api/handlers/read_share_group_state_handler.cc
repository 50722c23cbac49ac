#include "api/handlers/read_share_group_state_handler.h"

#include "api/authorize.h"
#include "api/handlers/share_group_state_support.h"
#include "coordinator/share/share_coordinator.h"

namespace skiff::api {

// CLUSTER_ACTION (KafkaApis.handleReadShareGroupStateRequest); then
// ShareCoordinatorService.readState's checks.
void ReadShareGroupStateHandler::handle(ApiRequest& request, protocol::ReadShareGroupStateRequest& body,
                                        Responder& out) {
  if (!authorized_cluster(services_, request, AclOperation::kClusterAction)) {
    out.send(share_state::global_error<protocol::ReadShareGroupStateResponse>(
        body, ErrorCode::kClusterAuthorizationFailed, share_state::kClusterAuthorizationFailed));
    return;
  }
  if (body.topics.empty()) {
    out.send(protocol::ReadShareGroupStateResponse{});
    return;
  }
  if (share_state::any_topic_without_partitions(body)) {
    out.send(protocol::ReadShareGroupStateResponse{});
    return;
  }
  if (body.group_id.empty()) {  // Kafka: an empty answer
    out.send(protocol::ReadShareGroupStateResponse{});
    return;
  }
  if (!services_.share_coordinator) {
    out.send(share_state::global_error<protocol::ReadShareGroupStateResponse>(body, ErrorCode::kCoordinatorNotAvailable,
                                                                              share_state::kNotAvailable));
    return;
  }
  auto gather = std::make_shared<share_state::Gather<protocol::ReadShareGroupStateResponse>>(
      share_state::skeleton<protocol::ReadShareGroupStateResponse>(body), share_state::partition_count(body), out);
  if (share_state::partition_count(body) == 0) {
    out.send(share_state::skeleton<protocol::ReadShareGroupStateResponse>(body));
    return;
  }
  auto& c = *services_.share_coordinator;
  for (size_t t = 0; t < body.topics.size(); ++t) {
    const auto& topic = body.topics[t];
    for (size_t i = 0; i < topic.partitions.size(); ++i) {
      const auto& p = topic.partitions[i];
      const sharecoord::Key key{body.group_id, topic.topic_id, p.partition};
      c.read(key, p.leader_epoch, [gather, t, i](ErrorCode e, const std::string& m, const sharecoord::ShareState& s) {
        auto& slot = gather->slot(t, i);
        share_state::set_error(slot, e, m);
        if (e == ErrorCode::kNone) {
          slot.state_epoch = s.state_epoch;
          slot.start_offset = s.start_offset;
          for (const auto& b : s.batches)
            slot.state_batches.push_back({b.first_offset, b.last_offset, b.delivery_state, b.delivery_count, {}});
        }
        gather->done_one();
      });
    }
  }
}

protocol::ReadShareGroupStateResponse ReadShareGroupStateHandler::error_response(
    const protocol::ReadShareGroupStateRequest& body, ErrorCode error) {
  return share_state::error_codes<protocol::ReadShareGroupStateResponse>(body, error);
}

}  // namespace skiff::api
