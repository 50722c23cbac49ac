#include "api/handlers/initialize_share_group_state_handler.h"

#include "api/authorize.h"
#include "api/handlers/share_group_state_support.h"
#include "coordinator/share/share_coordinator.h"

namespace skiff::api {

// CLUSTER_ACTION (KafkaApis.handleInitializeShareGroupStateRequest); then
// ShareCoordinatorService.initializeState's checks.
void InitializeShareGroupStateHandler::handle(ApiRequest& request, protocol::InitializeShareGroupStateRequest& body,
                                              Responder& out) {
  if (!authorized_cluster(services_, request, AclOperation::kClusterAction)) {
    out.send(share_state::global_error<protocol::InitializeShareGroupStateResponse>(
        body, ErrorCode::kClusterAuthorizationFailed, share_state::kClusterAuthorizationFailed));
    return;
  }
  if (!services_.share_coordinator) {
    out.send(share_state::global_error<protocol::InitializeShareGroupStateResponse>(
        body, ErrorCode::kCoordinatorNotAvailable, share_state::kNotAvailable));
    return;
  }
  if (body.group_id.empty()) {  // Kafka: an empty answer
    out.send(protocol::InitializeShareGroupStateResponse{});
    return;
  }
  if (body.topics.empty()) {
    out.send(protocol::InitializeShareGroupStateResponse{});
    return;
  }
  auto gather = std::make_shared<share_state::Gather<protocol::InitializeShareGroupStateResponse>>(
      share_state::skeleton<protocol::InitializeShareGroupStateResponse>(body), share_state::partition_count(body),
      out);
  if (share_state::partition_count(body) == 0) {
    out.send(share_state::skeleton<protocol::InitializeShareGroupStateResponse>(body));
    return;
  }
  auto& c = *services_.share_coordinator;
  for (size_t t = 0; t < body.topics.size(); ++t) {
    const auto& topic = body.topics[t];
    for (size_t i = 0; i < topic.partitions.size(); ++i) {
      const auto& p = topic.partitions[i];
      const sharecoord::Key key{body.group_id, topic.topic_id, p.partition};
      c.initialize(key, p.state_epoch, p.start_offset, [gather, t, i](ErrorCode e, const std::string& m) {
        share_state::set_error(gather->slot(t, i), e, m);
        gather->done_one();
      });
    }
  }
}

protocol::InitializeShareGroupStateResponse InitializeShareGroupStateHandler::error_response(
    const protocol::InitializeShareGroupStateRequest& body, ErrorCode error) {
  return share_state::error_codes<protocol::InitializeShareGroupStateResponse>(body, error);
}

}  // namespace skiff::api
