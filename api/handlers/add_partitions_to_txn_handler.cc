#include "api/handlers/add_partitions_to_txn_handler.h"

#include "api/txn_host.h"

namespace skiff::api {
namespace {

using protocol::AddPartitionsToTxnResponse;
using Topics = std::vector<protocol::AddPartitionsToTxnRequest::AddPartitionsToTxnTopic>;
using TopicResults = std::vector<AddPartitionsToTxnResponse::AddPartitionsToTxnTopicResult>;

std::set<txn::TopicPartition> partitions_of(const Topics& topics) {
  std::set<txn::TopicPartition> out;
  for (const auto& t : topics)
    for (int32_t p : t.partitions) out.insert({t.name, p});
  return out;
}

TopicResults results(const txn::PartitionErrors& errors) {
  TopicResults out;
  for (const auto& [tp, e] : errors) {
    if (out.empty() || out.back().name != tp.topic) {
      out.emplace_back();
      out.back().name = tp.topic;
    }
    AddPartitionsToTxnResponse::AddPartitionsToTxnPartitionResult r;
    r.partition_index = tp.partition;
    r.partition_error_code = code(e);
    out.back().results_by_partition.push_back(r);
  }
  return out;
}

txn::PartitionErrors all(const std::set<txn::TopicPartition>& parts, ErrorCode e) {
  txn::PartitionErrors out;
  for (const auto& tp : parts) out[tp] = e;
  return out;
}

// Kafka checks the partitions before the coordinator: unknown ones fail, the
// rest are not attempted. Empty map: all exist.
txn::PartitionErrors missing_partitions(const storage::LogManager& logs, const std::set<txn::TopicPartition>& parts) {
  bool any_missing = false;
  txn::PartitionErrors out;
  for (const auto& tp : parts) {
    bool exists = logs.get_log(tp.topic, tp.partition) != nullptr;
    any_missing |= !exists;
    out[tp] = exists ? ErrorCode::kOperationNotAttempted : ErrorCode::kUnknownTopicOrPartition;
  }
  return any_missing ? out : txn::PartitionErrors{};
}

}  // namespace

void AddPartitionsToTxnHandler::handle(ApiRequest& request, protocol::AddPartitionsToTxnRequest& body, Responder& out) {
  if (!services_.txn) {
    out.send(error_response(body, ErrorCode::kCoordinatorNotAvailable));
    return;
  }
  if (request.api_version() >= 4)
    handle_batch(body, out);
  else
    handle_v3(request, body, out);
}

void AddPartitionsToTxnHandler::handle_v3(ApiRequest& request, protocol::AddPartitionsToTxnRequest& body,
                                          Responder& out) {
  auto parts = partitions_of(body.v3_and_below_topics);
  auto missing = missing_partitions(services_.logs, parts);
  if (!missing.empty()) {
    AddPartitionsToTxnResponse r;
    r.results_by_topic_v3_and_below = results(missing);
    out.send(r);
    return;
  }
  const int16_t version = request.api_version();
  auto reply = [out, parts, version](ErrorCode e) mutable {
    AddPartitionsToTxnResponse r;
    r.results_by_topic_v3_and_below = results(all(parts, txn::fenced_error_for_version(e, version, 2)));
    out.send(r);
  };
  auto work = [body, parts, reply](txn::TxnCoordinator& c) mutable {
    c.add_partitions(body.v3_and_below_transactional_id, body.v3_and_below_producer_id,
                     body.v3_and_below_producer_epoch, parts, /*client_tv=*/0, reply);
  };
  services_.txn->submit(std::move(work), reply);
}

void AddPartitionsToTxnHandler::handle_batch(protocol::AddPartitionsToTxnRequest& body, Responder& out) {
  std::vector<txn::AddPartitionsEntry> entries;
  std::map<std::string, txn::PartitionErrors> answered;  // refused before the coordinator
  for (const auto& t : body.transactions) {
    auto parts = partitions_of(t.topics);
    auto missing = missing_partitions(services_.logs, parts);
    if (!missing.empty()) {
      answered[t.transactional_id] = std::move(missing);
      continue;
    }
    entries.push_back({t.transactional_id, t.producer_id, t.producer_epoch, t.verify_only, std::move(parts)});
  }
  auto reply = [out, answered](std::map<std::string, txn::PartitionErrors> by_id) mutable {
    by_id.insert(answered.begin(), answered.end());
    AddPartitionsToTxnResponse r;
    for (const auto& [id, errors] : by_id) {
      AddPartitionsToTxnResponse::AddPartitionsToTxnResult t;
      t.transactional_id = id;
      t.topic_results = results(errors);
      r.results_by_transaction.push_back(std::move(t));
    }
    out.send(r);
  };
  auto fail = [out, body, this](ErrorCode e) mutable { out.send(error_response(body, e)); };
  services_.txn->submit([entries, reply](txn::TxnCoordinator& c) mutable { c.add_partitions_batch(entries, reply); },
                        fail);
}

AddPartitionsToTxnResponse AddPartitionsToTxnHandler::error_response(const protocol::AddPartitionsToTxnRequest& body,
                                                                     ErrorCode error) {
  AddPartitionsToTxnResponse r;
  if (!body.transactions.empty()) {  // v4+: the top-level code
    r.error_code = code(error);
    return r;
  }
  r.results_by_topic_v3_and_below = results(all(partitions_of(body.v3_and_below_topics), error));
  return r;
}

}  // namespace skiff::api
