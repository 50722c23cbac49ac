#include "api/handlers/describe_producers_handler.h"

#include "api/authorize.h"
#include "api/topics.h"

namespace skiff::api {
namespace {

using protocol::DescribeProducersResponse;
using ProducersPartition = DescribeProducersResponse::PartitionResponse;

template <class PerPartition>
DescribeProducersResponse mirror(const protocol::DescribeProducersRequest& body, PerPartition&& answer) {
  DescribeProducersResponse resp;
  for (const auto& t : body.topics) {
    DescribeProducersResponse::TopicResponse tr;
    tr.name = t.name;
    for (int32_t p : t.partition_indexes) {
      ProducersPartition r = answer(t.name, p);
      r.partition_index = p;
      tr.partitions.push_back(std::move(r));
    }
    resp.topics.push_back(std::move(tr));
  }
  return resp;
}

ProducersPartition producers_failed(ErrorCode e) {
  ProducersPartition r;
  r.error_code = code(e);
  return r;
}

}  // namespace

// READ on each topic, else TOPIC_AUTHORIZATION_FAILED (KafkaApis.handleDescribeProducersRequest).
void DescribeProducersHandler::handle(ApiRequest& request, protocol::DescribeProducersRequest& body, Responder& out) {
  out.send(mirror(body, [&](const std::string& topic, int32_t partition) {
    if (!authorized_topic(services_, request, AclOperation::kRead, topic))
      return producers_failed(ErrorCode::kTopicAuthorizationFailed);
    auto log = find_log(services_, topic, partition);
    if (!log) return producers_failed(ErrorCode::kUnknownTopicOrPartition);
    ProducersPartition r;
    for (const auto& [pid, e] : log->producer_states()) {
      DescribeProducersResponse::ProducerState s;
      s.producer_id = pid;
      s.producer_epoch = e.epoch;
      s.last_sequence = e.last_seq();
      s.last_timestamp = e.last_timestamp;
      s.coordinator_epoch = e.coordinator_epoch;
      s.current_txn_start_offset = e.current_txn_first_offset;
      r.active_producers.push_back(s);
    }
    return r;
  }));
}

DescribeProducersResponse DescribeProducersHandler::error_response(const protocol::DescribeProducersRequest& body,
                                                                   ErrorCode error) {
  return mirror(body, [&](const std::string&, int32_t) { return producers_failed(error); });
}

}  // namespace skiff::api
