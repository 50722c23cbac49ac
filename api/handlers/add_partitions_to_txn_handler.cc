#include "api/handlers/add_partitions_to_txn_handler.h"

#include "api/authorize.h"
#include "coordinator/txn/txn_host.h"

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

// Kafka checks the partitions before the coordinator: topics the principal
// may not WRITE fail with TOPIC_AUTHORIZATION_FAILED, unknown ones with
// UNKNOWN_TOPIC_OR_PARTITION, the rest are not attempted. Empty map: all pass.
txn::PartitionErrors refused_partitions(BrokerServices& services, const ApiRequest& request,
                                        const std::set<txn::TopicPartition>& parts) {
  bool any_refused = false;
  txn::PartitionErrors out;
  const std::string* checked = nullptr;  // parts are sorted by topic: one check per topic
  bool may_write = true;
  for (const auto& tp : parts) {
    if (checked == nullptr || *checked != tp.topic) {
      checked = &tp.topic;
      may_write = authorized_topic(services, request, AclOperation::kWrite, tp.topic);
    }
    ErrorCode e = ErrorCode::kOperationNotAttempted;
    if (!may_write)
      e = ErrorCode::kTopicAuthorizationFailed;
    else if (services.logs.get_log(tp.topic, tp.partition) == nullptr)
      e = ErrorCode::kUnknownTopicOrPartition;
    any_refused |= e != ErrorCode::kOperationNotAttempted;
    out[tp] = e;
  }
  return any_refused ? out : txn::PartitionErrors{};
}

bool may_write_txn(BrokerServices& services, const ApiRequest& request, const std::string& id) {
  return authorized(services, request, AclOperation::kWrite, ResourceType::kTransactionalId, id);
}

}  // namespace

void AddPartitionsToTxnHandler::handle(ApiRequest& request, protocol::AddPartitionsToTxnRequest& body, Responder& out) {
  if (!services_.txn) {
    out.send(error_response(body, ErrorCode::kCoordinatorNotAvailable));
    return;
  }
  if (request.api_version() >= 4)
    handle_batch(request, body, out);
  else
    handle_v3(request, body, out);
}

void AddPartitionsToTxnHandler::handle_v3(ApiRequest& request, protocol::AddPartitionsToTxnRequest& body,
                                          Responder& out) {
  if (!may_write_txn(services_, request, body.v3_and_below_transactional_id)) {
    out.send(error_response(body, ErrorCode::kTransactionalIdAuthorizationFailed));
    return;
  }
  auto parts = partitions_of(body.v3_and_below_topics);
  auto missing = refused_partitions(services_, request, parts);
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

// v4+ comes from brokers: CLUSTER_ACTION on the cluster, then per transaction
// WRITE on its id and its topics (KafkaApis.handleAddPartitionsToTxnRequest).
void AddPartitionsToTxnHandler::handle_batch(const ApiRequest& request, protocol::AddPartitionsToTxnRequest& body,
                                             Responder& out) {
  if (!authorized_cluster(services_, request, AclOperation::kClusterAction)) {
    out.send(error_response(body, ErrorCode::kClusterAuthorizationFailed));
    return;
  }
  std::vector<txn::AddPartitionsEntry> entries;
  std::map<std::string, txn::PartitionErrors> answered;  // refused before the coordinator
  for (const auto& t : body.transactions) {
    auto parts = partitions_of(t.topics);
    if (!may_write_txn(services_, request, t.transactional_id)) {
      answered[t.transactional_id] = all(parts, ErrorCode::kTransactionalIdAuthorizationFailed);
      continue;
    }
    auto missing = refused_partitions(services_, request, parts);
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
