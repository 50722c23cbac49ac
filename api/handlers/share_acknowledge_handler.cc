#include "api/handlers/share_acknowledge_handler.h"

#include <map>

#include "api/authorize.h"
#include "api/share_api.h"

namespace skiff::api {
namespace {

using protocol::ShareAcknowledgeResponse;

ShareAcknowledgeResponse ack_error_response(ErrorCode e, std::string message) {
  ShareAcknowledgeResponse r;
  r.error_code = code(e);
  r.error_message = std::move(message);
  return r;
}

// Per topic, in the order the results name them.
ShareAcknowledgeResponse to_response(const share_api::AckResults& results, int32_t lock_ms) {
  ShareAcknowledgeResponse r;
  r.acquisition_lock_timeout_ms = lock_ms;
  std::map<Uuid, size_t> index;
  for (const auto& [tp, result] : results) {
    auto [it, added] = index.try_emplace(tp.topic_id, r.responses.size());
    if (added) {
      r.responses.emplace_back();
      r.responses.back().topic_id = tp.topic_id;
    }
    ShareAcknowledgeResponse::PartitionData pd;
    pd.partition_index = tp.partition;
    pd.error_code = code(result.code);
    if (!result.ok()) pd.error_message = result.message;
    pd.current_leader.leader_id = -1;
    pd.current_leader.leader_epoch = -1;
    r.responses[it->second].partitions.push_back(std::move(pd));
  }
  return r;
}

}  // namespace

void ShareAcknowledgeHandler::handle(ApiRequest& request, protocol::ShareAcknowledgeRequest& body, Responder& out) {
  if (!body.group_id) {
    out.send(ack_error_response(ErrorCode::kInvalidRequest, "Invalid group id in the request."));
    return;
  }
  const std::string group = *body.group_id;
  if (!authorized_group(services_, request, AclOperation::kRead, group)) {
    out.send(ack_error_response(ErrorCode::kGroupAuthorizationFailed, "Group authorization failed."));
    return;
  }
  const std::string member = body.member_id.value_or("");
  if (member.empty() || member.size() > 36) {
    out.send(ack_error_response(ErrorCode::kInvalidRequest, "Invalid member id in the request."));
    return;
  }
  const int32_t epoch = body.share_session_epoch;
  share::ShareResult session = shares_.sessions().acknowledge_session_update(group, member, epoch);
  if (!session.ok()) {
    out.send(ack_error_response(session.code, session.message));
    return;
  }
  std::vector<share_api::PartitionAcks> acks;
  for (const auto& t : body.topics) {
    for (const auto& p : t.partitions) {
      share_api::PartitionAcks a{{t.topic_id, p.partition_index}, {}};
      for (const auto& b : p.acknowledgement_batches)
        a.batches.push_back({b.first_offset, b.last_offset, b.acknowledge_types});
      acks.push_back(std::move(a));
    }
  }
  const int16_t version = request.api_version();
  const bool renew = version >= 2 && body.is_renew_ack;
  const int32_t lock_ms = shares_.config().settings(group).record_lock_duration_ms;
  share::SharePartitionManager* shares = &shares_;
  share_api::acknowledge(services_, request, shares_, group, member, std::move(acks), version >= 2, renew,
                         [out, shares, group, member, epoch, lock_ms](const share_api::AckResults& results) mutable {
                           if (epoch == -1) shares->release_session(group, member, [](const auto&, const auto&) {});
                           out.send(to_response(results, lock_ms));
                         });
}

protocol::ShareAcknowledgeResponse ShareAcknowledgeHandler::error_response(const protocol::ShareAcknowledgeRequest&,
                                                                           ErrorCode error) {
  ShareAcknowledgeResponse r;
  r.error_code = code(error);
  return r;
}

}  // namespace skiff::api
