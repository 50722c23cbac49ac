#include "api/handlers/write_share_group_state_handler.h"

#include "api/authorize.h"
#include "api/handlers/share_group_state_support.h"
#include "coordinator/share/share_coordinator.h"

namespace skiff::api {

// CLUSTER_ACTION (KafkaApis.handleWriteShareGroupStateRequest); then
// ShareCoordinatorService.writeState's checks.
void WriteShareGroupStateHandler::handle(ApiRequest& request, protocol::WriteShareGroupStateRequest& body,
                                         Responder& out) {
  if (!authorized_cluster(services_, request, AclOperation::kClusterAction)) {
    out.send(share_state::global_error<protocol::WriteShareGroupStateResponse>(
        body, ErrorCode::kClusterAuthorizationFailed, share_state::kClusterAuthorizationFailed));
    return;
  }
  if (body.topics.empty()) {
    out.send(protocol::WriteShareGroupStateResponse{});
    return;
  }
  if (share_state::any_topic_without_partitions(body)) {
    out.send(protocol::WriteShareGroupStateResponse{});
    return;
  }
  if (body.group_id.empty()) {  // Kafka: an empty answer
    out.send(protocol::WriteShareGroupStateResponse{});
    return;
  }
  if (!services_.share_coordinator) {
    out.send(share_state::global_error<protocol::WriteShareGroupStateResponse>(
        body, ErrorCode::kCoordinatorNotAvailable, share_state::kNotAvailable));
    return;
  }
  auto gather = std::make_shared<share_state::Gather<protocol::WriteShareGroupStateResponse>>(
      share_state::skeleton<protocol::WriteShareGroupStateResponse>(body), share_state::partition_count(body), out);
  if (share_state::partition_count(body) == 0) {
    out.send(share_state::skeleton<protocol::WriteShareGroupStateResponse>(body));
    return;
  }
  auto& c = *services_.share_coordinator;
  for (size_t t = 0; t < body.topics.size(); ++t) {
    const auto& topic = body.topics[t];
    for (size_t i = 0; i < topic.partitions.size(); ++i) {
      const auto& p = topic.partitions[i];
      const sharecoord::Key key{body.group_id, topic.topic_id, p.partition};
      std::vector<sharecoord::StateBatch> batches;
      batches.reserve(p.state_batches.size());
      for (const auto& b : p.state_batches)
        batches.push_back({b.first_offset, b.last_offset, b.delivery_state, b.delivery_count});
      c.write(key, p.state_epoch, p.leader_epoch, p.start_offset, p.delivery_complete_count, std::move(batches),
              [gather, t, i](ErrorCode e, const std::string& m) {
                share_state::set_error(gather->slot(t, i), e, m);
                gather->done_one();
              });
    }
  }
}

protocol::WriteShareGroupStateResponse WriteShareGroupStateHandler::error_response(
    const protocol::WriteShareGroupStateRequest& body, ErrorCode error) {
  return share_state::error_codes<protocol::WriteShareGroupStateResponse>(body, error);
}

}  // namespace skiff::api
