#include "api/handlers/produce_handler.h"

#include <set>
#include <utility>

#include "api/api_log.h"
#include "api/authorize.h"
#include "api/purgatory.h"
#include "api/quota/quota_manager.h"
#include "api/topic_metrics.h"
#include "api/topics.h"
#include "common/log_escape.h"
#include "common/wall_clock.h"
#include "coordinator/txn/txn_gates.h"
#include "log/record_batch.h"

namespace skiff::api {

// One partition of the request as decided before any append.
struct ProduceHandler::PartitionPlan {
  ErrorCode error = ErrorCode::kNone;  // answered without an append
  std::optional<std::string> message;
  std::shared_ptr<storage::Log> log;
  bool transactional = false;  // holds a transactional batch: the gate decides
  // A transactional producer's partition: appended with this verification
  // guard (storage::VerificationGuard; kNoVerification: found open).
  std::optional<storage::VerificationGuard> guard;
};

struct ProduceHandler::TopicPlan {
  std::string name;  // v13: resolved from the topic id
  std::vector<PartitionPlan> partitions;
};

// A request waiting for the transaction check: owns the frame the record
// views point into (the append rewrites them in place) and the decoded body.
struct ProduceHandler::Pending {
  network::Frame frame;
  protocol::ProduceRequest body;
  std::vector<TopicPlan> plan;
  int16_t version = 0;
  Responder out;
  txn::TxnProduceGate::Check check;
  int rechecks = 0;  // verifications taken again after a marker cleared them
};

namespace {

using protocol::ProduceResponse;

ProduceResponse::PartitionProduceResponse partition_error(int32_t index, ErrorCode error,
                                                          std::optional<std::string> message = std::nullopt) {
  ProduceResponse::PartitionProduceResponse p;
  p.index = index;
  p.error_code = code(error);
  p.base_offset = -1;
  p.error_message = std::move(message);
  return p;
}

// The (producer id, epoch) of each transactional batch in `records`.
void collect_transactional(std::span<uint8_t> records, std::set<std::pair<int64_t, int16_t>>& producers) {
  storage::BatchIterator it(records);
  storage::RecordBatchView batch;
  while (it.next(batch))
    if (batch.magic() >= 2 && batch.is_transactional()) producers.emplace(batch.producer_id(), batch.producer_epoch());
}

// zstd arrived with Produce v7 (KIP-110): an older request may not carry it
// (Kafka's ProduceRequest.validateRecords).
bool has_zstd_batch(std::span<uint8_t> records) {
  storage::BatchIterator it(records);
  storage::RecordBatchView batch;
  while (it.next(batch))
    if (batch.magic() >= 2 && batch.compression() == storage::Compression::kZstd) return true;
  return false;
}

std::span<uint8_t> mutable_records(protocol::ProduceRequest::PartitionProduceData& data) {
  // The request owns its frame, so the batches can be rewritten in place.
  auto view = data.records.data();
  return {const_cast<uint8_t*>(view.data()), view.size()};
}

const char* coordinator_error_name(ErrorCode e) {
  switch (e) {
    case ErrorCode::kCoordinatorLoadInProgress:
      return "COORDINATOR_LOAD_IN_PROGRESS";
    case ErrorCode::kCoordinatorNotAvailable:
      return "COORDINATOR_NOT_AVAILABLE";
    case ErrorCode::kNotCoordinator:
      return "NOT_COORDINATOR";
    case ErrorCode::kConcurrentTransactions:
      return "CONCURRENT_TRANSACTIONS";
    default:
      return code(e) == 13 ? "NETWORK_EXCEPTION" : nullptr;
  }
}

// What Produce answers for a partition the transaction check refused, as
// Kafka 4.4: AddPartitionsToTxnManager turns PRODUCER_FENCED into
// INVALID_PRODUCER_EPOCH and, for Produce <= v10 (DEFAULT_ERROR),
// TRANSACTION_ABORTABLE into INVALID_TXN_STATE; ReplicaManager then answers
// coordinator unavailability with the retriable NOT_ENOUGH_REPLICAS (no
// metadata refresh), CONCURRENT_TRANSACTIONS too below v12 (TV2 clients get
// it as is), and INVALID_TXN_STATE with its fixed message.
std::pair<ErrorCode, std::optional<std::string>> answer_for_check(ErrorCode e, int16_t version) {
  if (e == ErrorCode::kProducerFenced) e = ErrorCode::kInvalidProducerEpoch;
  if (e == ErrorCode::kTransactionAbortable && version <= 10) e = ErrorCode::kInvalidTxnState;
  if (e == ErrorCode::kInvalidTxnState) return {e, "Partition was not added to the transaction"};
  const char* name = coordinator_error_name(e);
  if (name && (e != ErrorCode::kConcurrentTransactions || version < 12))
    return {ErrorCode::kNotEnoughReplicas,
            std::string("Unable to verify the partition has been added to the transaction. Underlying error: ") + name};
  return {e, std::nullopt};
}

void fail_all(std::vector<ProduceHandler::TopicPlan>& plan, ErrorCode error, const std::string& message) {
  for (auto& t : plan)
    for (auto& p : t.partitions) {
      p.error = error;
      p.message = message;
      p.transactional = false;
    }
}

// Whole-request refusals of transactional records, as KafkaApis and
// ReplicaManager make them: no transactional id (the authorization check of
// a transactional produce), several producers, no coordinator here.
std::optional<std::pair<ErrorCode, std::string>> refusal(const protocol::ProduceRequest& body, size_t producers,
                                                         bool have_gate) {
  if (!body.transactional_id)
    return std::pair(ErrorCode::kTransactionalIdAuthorizationFailed,
                     std::string("transactions need a transactional id: this request has transactional "
                                 "records without one"));
  if (producers > 1)
    return std::pair(ErrorCode::kInvalidProducerIdMapping,
                     std::string("Transactional records contained more than one producer ID"));
  if (!have_gate)
    return std::pair(ErrorCode::kTransactionalIdAuthorizationFailed,
                     std::string("transactions are not available: the transaction coordinator is not running"));
  return std::nullopt;
}

// Marks the partitions holding transactional batches (those already failed
// stay unmarked); returns the (producer id, epoch) of every such batch.
std::set<std::pair<int64_t, int16_t>> mark_transactional(protocol::ProduceRequest& body,
                                                         std::vector<ProduceHandler::TopicPlan>& plan) {
  std::set<std::pair<int64_t, int16_t>> producers;
  for (size_t i = 0; i < plan.size(); ++i)
    for (size_t j = 0; j < plan[i].partitions.size(); ++j) {
      auto& data = body.topic_data[i].partition_data[j];
      std::set<std::pair<int64_t, int16_t>> mine;
      if (!data.records.is_null()) collect_transactional(mutable_records(data), mine);
      if (mine.empty()) continue;
      producers.insert(mine.begin(), mine.end());
      plan[i].partitions[j].transactional = plan[i].partitions[j].error == ErrorCode::kNone;
    }
  return producers;
}

// Kafka 4.4's UnifiedLog.maybeStartTransactionVerification: an epoch older
// than the partition's is INVALID_PRODUCER_EPOCH at once; a partition where
// this producer's transaction at this epoch is already open is in the
// transaction and appends without a check (guarded by the SENTINEL: should a
// marker end it first, the append is refused); the others take a
// verification guard, then go to the gate.
std::set<txn::TopicPartition> partitions_to_check(protocol::ProduceRequest& body,
                                                  std::vector<ProduceHandler::TopicPlan>& plan, int64_t producer_id,
                                                  int16_t epoch) {
  std::set<txn::TopicPartition> out;
  for (size_t i = 0; i < plan.size(); ++i)
    for (size_t j = 0; j < plan[i].partitions.size(); ++j) {
      auto& p = plan[i].partitions[j];
      if (!p.transactional) continue;
      auto entry = p.log->producer_state(producer_id);
      if (entry && epoch < entry->epoch) {
        p.error = ErrorCode::kInvalidProducerEpoch;
        p.transactional = false;
      } else if (entry && entry->epoch == epoch && entry->current_txn_first_offset >= 0) {
        p.transactional = false;  // appended as is
        p.guard = storage::kNoVerification;
      } else {
        p.guard = p.log->begin_txn_verification(producer_id);
        out.insert({plan[i].name, body.topic_data[i].partition_data[j].index});
      }
    }
  return out;
}

}  // namespace

// WRITE on each topic (KafkaApis.handleProduceRequest): an unauthorized topic
// is TOPIC_AUTHORIZATION_FAILED whether it exists or not, and is not created.
ProduceHandler::TopicPlan ProduceHandler::plan_topic(const ApiRequest& request,
                                                     protocol::ProduceRequest::TopicProduceData& topic) {
  const int16_t version = request.api_version();
  TopicPlan t;
  ErrorCode topic_error = ErrorCode::kNone;
  if (version >= 13) {
    auto info = services_.logs.topic_by_id(topic.topic_id);
    if (info)
      t.name = info->name;
    else
      topic_error = ErrorCode::kUnknownTopicId;
  } else {
    t.name = topic.name;
  }
  if (topic_error == ErrorCode::kNone && !authorized_topic(services_, request, AclOperation::kWrite, t.name))
    topic_error = ErrorCode::kTopicAuthorizationFailed;
  else if (is_internal_topic(t.name))  // refused before any look-up, as Kafka
    topic_error = ErrorCode::kInvalidTopicException;
  else if (version < 13)
    topic_error = find_topic_or_create(services_, request, t.name);
  for (auto& data : topic.partition_data) {
    PartitionPlan& p = t.partitions.emplace_back();
    p.error = topic_error;
    if (p.error != ErrorCode::kNone) continue;
    p.log = find_log(services_, t.name, data.index);
    if (!p.log) {
      p.error = ErrorCode::kUnknownTopicOrPartition;
    } else if (data.records.is_null() || data.records.size() == 0) {
      p.error = ErrorCode::kInvalidRecord;
      p.message = "empty records";
    } else if (version < 7 && has_zstd_batch(mutable_records(data))) {
      p.error = ErrorCode::kUnsupportedCompressionType;
      p.message =
          "Produce requests with version " + std::to_string(version) + " are not allowed to use ZStandard compression";
    }
  }
  return t;
}

std::vector<ProduceHandler::TopicPlan> ProduceHandler::plan(const ApiRequest& request, protocol::ProduceRequest& body) {
  std::vector<TopicPlan> plan;
  if (body.acks != 0 && body.acks != 1 && body.acks != -1) {
    for (const auto& topic : body.topic_data) {
      auto& t = plan.emplace_back();
      t.name = topic.name;
      t.partitions.resize(topic.partition_data.size());
      for (auto& p : t.partitions) p.error = ErrorCode::kInvalidRequiredAcks;
    }
    return plan;
  }
  for (auto& topic : body.topic_data) plan.push_back(plan_topic(request, topic));
  return plan;
}

ProduceResponse::PartitionProduceResponse ProduceHandler::append_partition(
    const std::string& topic, storage::Log& log, protocol::ProduceRequest::PartitionProduceData& data,
    std::optional<storage::VerificationGuard> guard) {
  if (log.deleted()) return partition_error(data.index, ErrorCode::kUnknownTopicOrPartition);
  auto result = guard ? log.append_verified(mutable_records(data), wall_clock_ms(), *guard)
                      : log.append(mutable_records(data), /*leader_epoch=*/0, wall_clock_ms());
  if (!result) {
    const storage::Error& e = result.error();
    if (services_.topic_metrics) services_.topic_metrics->produce_failed(topic);
    if (e.code == storage::LogErrc::kStorageError)
      api_log().error("append to {}-{} failed: {}", escaped(topic), data.index, escaped(e.message));
    auto p = partition_error(data.index, to_error_code(e), e.message.empty() ? std::nullopt : std::optional(e.message));
    for (const auto& r : e.record_errors)  // v8+ carries them (KIP-467); older versions drop them
      p.record_errors.push_back({r.batch_index, r.message, {}});
    return p;
  }
  const storage::Appended& done = *result;
  ProduceResponse::PartitionProduceResponse p;
  p.index = data.index;
  p.base_offset = done.base_offset.value;
  p.log_append_time_ms = done.log_append_time;
  p.log_start_offset = done.log_start_offset.value;
  if (done.duplicate)  // an idempotent producer's retry: answered with the first offsets, nothing new
    api_log().debug("duplicate batch for {}-{} answered with offset {}", escaped(topic), data.index, p.base_offset);
  else
    wake_partition(services_.fetch_purgatory, topic, data.index);
  if (services_.topic_metrics && !done.duplicate)
    services_.topic_metrics->produced(topic, static_cast<uint64_t>(done.record_count), data.records.size());
  return p;
}

void ProduceHandler::finish(protocol::ProduceRequest& body, std::vector<TopicPlan>& plan, Responder& out) {
  bool any_error = false;
  ProduceResponse resp;
  for (size_t i = 0; i < body.topic_data.size(); ++i) {
    auto& topic = body.topic_data[i];
    ProduceResponse::TopicProduceResponse t;
    t.name = topic.name;  // each version carries only its own of the two
    t.topic_id = topic.topic_id;
    for (size_t j = 0; j < topic.partition_data.size(); ++j) {
      auto& data = topic.partition_data[j];
      auto& p = plan[i].partitions[j];
      auto answer = p.error != ErrorCode::kNone ? partition_error(data.index, p.error, p.message)
                                                : append_partition(plan[i].name, *p.log, data, p.guard);
      any_error |= answer.error_code != 0;
      t.partition_responses.push_back(std::move(answer));
    }
    resp.responses.push_back(std::move(t));
  }
  if (body.acks == 0) {
    // The client reads no response, so an error can only be signalled by
    // closing the connection (it then refreshes metadata), as Kafka does.
    if (any_error)
      out.close("acks=0 produce failed");
    else
      out.send_nothing();
    return;
  }
  out.send(resp);
}

// A guard cleared while the coordinator was asked (a marker was written):
// the answer may predate the end of a transaction. Take new guards for those
// partitions and ask again, as Kafka retries the whole verification. The
// usual case is TV2's: the previous transaction's markers, written while the
// coordinator held this request back; the second answer comes at once.
bool ProduceHandler::recheck_stale(const std::shared_ptr<Pending>& pending) {
  constexpr int kMaxRechecks = 3;
  std::set<txn::TopicPartition> stale;
  for (size_t i = 0; i < pending->plan.size(); ++i)
    for (size_t j = 0; j < pending->plan[i].partitions.size(); ++j) {
      auto& p = pending->plan[i].partitions[j];
      const txn::TopicPartition tp{pending->plan[i].name, pending->body.topic_data[i].partition_data[j].index};
      if (!p.transactional || !p.guard || p.error != ErrorCode::kNone || !pending->check.partitions.contains(tp))
        continue;
      if (p.log->txn_verification_valid(pending->check.producer_id, *p.guard)) continue;
      stale.insert(tp);
    }
  if (stale.empty() || pending->rechecks++ >= kMaxRechecks) return false;  // past the limit: the append refuses
  for (size_t i = 0; i < pending->plan.size(); ++i)
    for (size_t j = 0; j < pending->plan[i].partitions.size(); ++j) {
      auto& p = pending->plan[i].partitions[j];
      if (stale.contains({pending->plan[i].name, pending->body.topic_data[i].partition_data[j].index}))
        p.guard = p.log->begin_txn_verification(pending->check.producer_id);
    }
  pending->check.partitions = std::move(stale);
  start_check(pending);
  return true;
}

void ProduceHandler::start_check(const std::shared_ptr<Pending>& pending) {
  auto check = pending->check;
  services_.txn_gate->check(std::move(check), [this, pending](std::map<txn::TopicPartition, ErrorCode> result) {
    try {
      for (size_t i = 0; i < pending->plan.size(); ++i)
        for (size_t j = 0; j < pending->plan[i].partitions.size(); ++j) {
          auto& p = pending->plan[i].partitions[j];
          if (!p.transactional) continue;
          auto it = result.find({pending->plan[i].name, pending->body.topic_data[i].partition_data[j].index});
          if (it == result.end() || it->second == ErrorCode::kNone) continue;
          std::tie(p.error, p.message) = answer_for_check(it->second, pending->version);
        }
      if (recheck_stale(pending)) return;
      finish(pending->body, pending->plan, pending->out);
    } catch (const std::exception& e) {
      api_log().error("transactional produce completion failed: {}", escaped(e.what()));
      pending->out.close("produce completion failed");
    }
  });
}

void ProduceHandler::handle(ApiRequest& request, protocol::ProduceRequest& body, Responder& out) {
  const int16_t version = request.api_version();
  // producer_byte_rate: the whole request counts, as Kafka's request.sizeInBytes;
  // the records are appended all the same, and the answer carries the throttle.
  if (auto* quotas = services_.quotas; quotas && quotas->enabled(quota::QuotaKind::kProduce))
    out.throttle(quotas->record(quota::QuotaKind::kProduce, quota::quota_user(request.context().principal),
                                request.header.client_id.value_or(""),
                                static_cast<double>(request.raw.frame.size() + 4)));
  auto plan = this->plan(request, body);
  const auto producers = mark_transactional(body, plan);
  if (!producers.empty()) {
    if (auto refused = refusal(body, producers.size(), services_.txn_gate != nullptr))
      fail_all(plan, refused->first, refused->second);
    else if (!authorized(services_, request, AclOperation::kWrite, ResourceType::kTransactionalId,
                         *body.transactional_id))
      fail_all(plan, ErrorCode::kTransactionalIdAuthorizationFailed, "Transactional Id authorization failed.");
  }
  txn::TxnProduceGate::Check check;
  if (producers.size() == 1) {
    std::tie(check.producer_id, check.epoch) = *producers.begin();
    check.partitions = partitions_to_check(body, plan, check.producer_id, check.epoch);
  }
  if (check.partitions.empty()) {  // nothing for the gate: answered now
    finish(body, plan, out);
    return;
  }
  check.transactional_id = *body.transactional_id;
  check.implicit_add = version >= 12;
  auto pending = std::make_shared<Pending>(
      Pending{std::move(request.raw.frame), std::move(body), std::move(plan), version, out, std::move(check)});
  start_check(pending);
}

ProduceResponse ProduceHandler::error_response(const protocol::ProduceRequest& body, ErrorCode error) {
  ProduceResponse resp;
  for (const auto& topic : body.topic_data) {
    ProduceResponse::TopicProduceResponse t;
    t.name = topic.name;
    t.topic_id = topic.topic_id;
    for (const auto& part : topic.partition_data) t.partition_responses.push_back(partition_error(part.index, error));
    resp.responses.push_back(std::move(t));
  }
  return resp;
}

}  // namespace skiff::api
