// What the two heartbeats of the modern group protocols share
// (ConsumerGroupHeartbeat, KIP-848; ShareGroupHeartbeat, KIP-932): KafkaApis'
// authorization (READ on the group, DESCRIBE on every subscribed topic name)
// and the answer built from the coordinator's result (member id, epoch,
// heartbeat interval; the assignment as topic ids and partitions).
//
// Threads: the handler's thread.
#pragma once

#include <optional>
#include <utility>

#include "api/authorize.h"
#include "api/broker_services.h"
#include "protocol/error_codes.h"

namespace skiff::api::heartbeat {

// GROUP_AUTHORIZATION_FAILED / TOPIC_AUTHORIZATION_FAILED, or nullopt.
template <typename Req>
std::optional<ErrorCode> refusal(const BrokerServices& services, const ApiRequest& request, const Req& body) {
  if (!authorized_group(services, request, AclOperation::kRead, body.group_id))
    return ErrorCode::kGroupAuthorizationFailed;
  if (body.subscribed_topic_names)
    for (const auto& topic : *body.subscribed_topic_names)
      if (!authorized_topic(services, request, AclOperation::kDescribe, topic))
        return ErrorCode::kTopicAuthorizationFailed;
  return std::nullopt;
}

template <typename Resp, typename Result>
Resp response(Result&& r) {
  Resp resp;
  resp.error_code = code(r.error);
  resp.error_message = std::move(r.message);
  if (r.error == ErrorCode::kNone) {
    resp.member_id = std::move(r.member_id);
    resp.member_epoch = r.member_epoch;
    resp.heartbeat_interval_ms = r.heartbeat_interval_ms;
  }
  if (r.assignment) {
    auto& a = resp.assignment.emplace();
    for (const auto& [id, parts] : *r.assignment) {
      auto& tp = a.topic_partitions.emplace_back();
      tp.topic_id = id;
      tp.partitions.assign(parts.begin(), parts.end());
    }
  }
  return resp;
}

}  // namespace skiff::api::heartbeat
