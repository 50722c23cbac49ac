#include "api/handlers/delete_topics_handler.h"

#include "api/api_log.h"
#include "api/authorize.h"
#include "api/purgatory.h"
#include "api/topics.h"
#include "common/log_escape.h"
#include "coordinator/group/group_coordinator.h"

namespace skiff::api {
namespace {

using protocol::DeleteTopicsResponse;
using DeletedTopic = DeleteTopicsResponse::DeletableTopicResult;

// One entry per requested topic: v0-5 name the topics in topic_names, v6 in
// topics (by name or by id).
template <class PerTopic>
DeleteTopicsResponse mirror(const protocol::DeleteTopicsRequest& body, int16_t version, PerTopic&& answer) {
  DeleteTopicsResponse resp;
  if (version < 6) {
    for (const auto& n : body.topic_names)
      resp.responses.push_back(answer(std::optional<std::string>(n), protocol::Uuid{}));
  } else {
    for (const auto& t : body.topics) resp.responses.push_back(answer(t.name, t.topic_id));
  }
  return resp;
}

DeletedTopic delete_topic_failed(DeletedTopic r, ErrorCode e, std::optional<std::string> message = std::nullopt) {
  r.error_code = code(e);
  r.error_message = std::move(message);
  return r;
}

}  // namespace

void DeleteTopicsHandler::handle(ApiRequest& request, protocol::DeleteTopicsRequest& body, Responder& out) {
  const int16_t version = request.api_version();
  out.send(mirror(body, version, [&](const std::optional<std::string>& name, const protocol::Uuid& id) {
    DeletedTopic r;
    r.name = name;
    r.topic_id = id;
    std::optional<storage::TopicInfo> topic;
    // DELETE on the topic (named: before looking it up; by id: after, and
    // without DESCRIBE its name is withheld), as KafkaApis.handleDeleteTopicsRequest.
    auto may = [&](AclOperation op, const std::string& topic_name) {
      return authorized_topic(services_, request, op, topic_name);
    };
    if (name && !name->empty()) {
      if (!may(AclOperation::kDelete, *name)) return delete_topic_failed(r, ErrorCode::kTopicAuthorizationFailed);
      topic = services_.logs.topic(*name);
      if (!topic)
        return delete_topic_failed(r, ErrorCode::kUnknownTopicOrPartition,
                                   "This server does not host this topic-partition.");
      if (!id.is_zero() && topic->topic_id != id)
        return delete_topic_failed(r, ErrorCode::kInvalidRequest, "Topic name and id do not match.");
    } else {
      if (id.is_zero())
        return delete_topic_failed(r, ErrorCode::kInvalidRequest, "Neither a topic name nor a topic id was given.");
      topic = services_.logs.topic_by_id(id);
      if (!topic) return delete_topic_failed(r, ErrorCode::kUnknownTopicId, "This server does not host this topic ID.");
      if (!may(AclOperation::kDescribe, topic->name))
        return delete_topic_failed(r, ErrorCode::kTopicAuthorizationFailed);
      if (!may(AclOperation::kDelete, topic->name)) {
        r.name = topic->name;
        return delete_topic_failed(r, ErrorCode::kTopicAuthorizationFailed);
      }
    }
    r.name = topic->name;
    r.topic_id = topic->topic_id;
    if (!services_.config.delete_topic_enable)
      return delete_topic_failed(r, ErrorCode::kTopicDeletionDisabled,
                                 "Topic deletion is disabled (delete.topic.enable=false).");
    if (auto done = services_.logs.delete_topic(topic->name); !done)
      return delete_topic_failed(r, to_error_code(done.error()));
    api_log().info("deleted topic {} ({} partition(s))", escaped(topic->name), topic->partitions);
    if (services_.groups) {  // Kafka drops the topic's committed offsets with it
      const std::string& deleted = topic->name;
      int n =
          services_.groups->delete_offsets_where([&](const group::TopicPartition& tp) { return tp.topic == deleted; });
      if (n) api_log().info("deleted topic {}: removed {} committed offset(s)", escaped(deleted), n);
    }
    // Waiting fetches notice the partition is gone.
    for (int32_t p = 0; p < topic->partitions; ++p) wake_partition(services_.fetch_purgatory, topic->name, p);
    r.error_message = std::nullopt;
    return r;
  }));
}

DeleteTopicsResponse DeleteTopicsHandler::error_response(const protocol::DeleteTopicsRequest& body, ErrorCode error) {
  DeleteTopicsResponse resp;
  for (const auto& n : body.topic_names) {
    DeletedTopic r;
    r.name = n;
    resp.responses.push_back(delete_topic_failed(r, error));
  }
  for (const auto& t : body.topics) {
    DeletedTopic r;
    r.name = t.name;
    r.topic_id = t.topic_id;
    resp.responses.push_back(delete_topic_failed(r, error));
  }
  return resp;
}

}  // namespace skiff::api
