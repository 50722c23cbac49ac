// What OffsetCommit and TxnOffsetCommit share: the request's topics resolved
// (by name, or by id from the version that names them so), READ checked on
// each, and the response mirrored with one entry per requested partition.
// Handler threads; no state of its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "api/broker_services.h"
#include "api/topics.h"
#include "coordinator/group/group_types.h"
#include "protocol/error_codes.h"

namespace skiff::api {

// The response to `body` with every partition answered `error`.
template <class Response, class Request>
Response every_partition_answered(const Request& body, ErrorCode error) {
  Response resp;
  for (const auto& topic : body.topics) {
    auto& t = resp.topics.emplace_back();
    t.name = topic.name;
    t.topic_id = topic.topic_id;
    for (const auto& part : topic.partitions) {
      auto& r = t.partitions.emplace_back();
      r.partition_index = part.partition_index;
      r.error_code = code(error);
    }
  }
  return resp;
}

// One requested partition's offset, leader epoch (-1 unless
// `with_leader_epoch`) and metadata, committed at `now`.
template <class Partition>
group::OffsetAndMetadata committed_offset(const Partition& part, bool with_leader_epoch, int64_t now) {
  group::OffsetAndMetadata o;
  o.offset = part.committed_offset;
  o.leader_epoch = with_leader_epoch ? part.committed_leader_epoch : -1;
  o.metadata = part.committed_metadata.value_or("");
  o.commit_timestamp = now;
  return o;
}

// Where each offset put in Params::offsets is answered: (topic, partition)
// indexes into the response, in the same order.
using OffsetSlots = std::vector<std::pair<size_t, size_t>>;

// Fills `resp` with one entry per requested partition and `params` (its
// offsets and topic_ids) with each offset that may be committed; a topic
// that is unknown or not readable (`may_read(name)`) is answered in place.
// `by_id`: the version names topics by id. `make(partition)` builds the
// OffsetAndMetadata of one requested partition.
template <class Request, class Response, class Params, class MayRead, class Make>
OffsetSlots resolve_committed_offsets(BrokerServices& services, const Request& body, bool by_id,
                                      const MayRead& may_read, const Make& make, Response& resp, Params& params) {
  OffsetSlots slots;
  for (const auto& topic : body.topics) {
    auto& t = resp.topics.emplace_back();
    t.name = topic.name;
    t.topic_id = topic.topic_id;
    // By name, an unknown topic is found out per partition (after READ is checked).
    auto [topic_error, info] = find_topic_by_name_or_id(services, topic.name, topic.topic_id, by_id);
    if ((info || !by_id) && !may_read(info ? info->name : topic.name)) {
      topic_error = ErrorCode::kTopicAuthorizationFailed;
      info.reset();
    }
    t.partitions.reserve(topic.partitions.size());
    for (const auto& part : topic.partitions) {
      auto& r = t.partitions.emplace_back();
      r.partition_index = part.partition_index;
      if (!info || part.partition_index < 0 || part.partition_index >= info->partitions) {
        r.error_code = code(info ? ErrorCode::kUnknownTopicOrPartition : topic_error);
        continue;
      }
      params.offsets.emplace_back(group::TopicPartition{info->name, part.partition_index}, make(part));
      params.topic_ids.push_back(info->topic_id);  // Kafka resolves names to ids for the assignment-epoch check
      slots.emplace_back(resp.topics.size() - 1, t.partitions.size() - 1);
    }
  }
  return slots;
}

// Answers each offset of `slots` with its error from the group coordinator.
template <class Response>
void answer_offsets(Response& resp, const OffsetSlots& slots, const std::vector<ErrorCode>& errors) {
  for (size_t i = 0; i < slots.size(); ++i)
    resp.topics[slots[i].first].partitions[slots[i].second].error_code = code(errors[i]);
}

// Answers every offset of `slots` with `error`.
template <class Response>
void answer_offsets(Response& resp, const OffsetSlots& slots, ErrorCode error) {
  for (auto [topic, partition] : slots) resp.topics[topic].partitions[partition].error_code = code(error);
}

}  // namespace skiff::api
