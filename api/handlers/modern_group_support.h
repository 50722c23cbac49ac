// What the handlers of the modern group protocols share (KIP-848's consumer
// groups, KIP-932's share groups, KIP-1071's streams groups; the classic
// JoinGroup for its topic resolver): the broker's topics as the coordinator
// resolves them, the heartbeats' authorization (READ on the
// group, DESCRIBE on every subscribed topic name) and their answer built from
// the coordinator's result (member id, epoch, heartbeat interval; the
// assignment as topic ids and partitions); the describes' assignments on the
// wire, with topic names.
//
// Threads: the handler's thread.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>

#include "api/authorize.h"
#include "api/broker_services.h"
#include "api/topics.h"
#include "common/uuid.h"
#include "coordinator/group/group_types.h"
#include "protocol/error_codes.h"

namespace skiff::api::modern_group {

// The broker's topics by name, as the group coordinator resolves a member's
// subscription or topology (id and partition count; nothing: no such topic).
inline group::TopicResolver topic_resolver(storage::LogManager& logs) {
  return [&logs](const std::string& name) -> std::optional<group::consumer::TopicMetadata> {
    auto t = logs.topic(name);
    if (!t) return std::nullopt;
    return group::consumer::TopicMetadata{t->topic_id, name, t->partitions};
  };
}

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

// A member's assignment (topic id -> partitions) as a describe answer's
// TopicPartitions, named from `names` or else the topic store.
template <typename Out, typename Assignment>
Out assignment_to_wire(BrokerServices& services, const Assignment& a, const std::map<Uuid, std::string>& names) {
  Out out;
  for (const auto& [id, parts] : a) {
    auto& tp = out.topic_partitions.emplace_back();
    tp.topic_id = id;
    if (auto n = names.find(id); n != names.end()) {
      tp.topic_name = n->second;
    } else if (auto found = find_topic_by_name_or_id(services, "", id, true); found.topic) {
      tp.topic_name = found.topic->name;
    }
    tp.partitions.assign(parts.begin(), parts.end());
  }
  return out;
}

}  // namespace skiff::api::modern_group
