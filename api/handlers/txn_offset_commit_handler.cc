#include "api/handlers/txn_offset_commit_handler.h"

#include <functional>
#include <memory>

#include "api/authorize.h"
#include "api/handlers/committed_offsets.h"
#include "common/wall_clock.h"
#include "coordinator/group/group_coordinator.h"
#include "coordinator/runtime/storage_errors.h"
#include "coordinator/txn/txn_gates.h"
#include "protocol/error_codes.h"

namespace skiff::api {
namespace {

using protocol::TxnOffsetCommitResponse;

// What TxnOffsetCommit answers for a failed transaction check, as Kafka 4.4:
// AddPartitionsToTxnManager turns PRODUCER_FENCED into INVALID_PRODUCER_EPOCH
// (an epoch a TV2 end has bumped past is INVALID_PRODUCER_EPOCH here, as on
// Produce) and, below v4, TRANSACTION_ABORTABLE into INVALID_TXN_STATE; then
// CoordinatorOperationExceptionHelper.handleOperationException maps what is
// left (NOT_ENOUGH_REPLICAS to COORDINATOR_NOT_AVAILABLE, ...), and passes
// CONCURRENT_TRANSACTIONS and the coordinator errors through as they are.
ErrorCode gate_error(ErrorCode e, int16_t version) {
  if (code(e) == 13) return ErrorCode::kCoordinatorLoadInProgress;  // NETWORK_EXCEPTION
  if (e == ErrorCode::kProducerFenced) return ErrorCode::kInvalidProducerEpoch;
  if (e == ErrorCode::kTransactionAbortable) return version >= 4 ? e : ErrorCode::kInvalidTxnState;
  return coordinator_append_error(e).value_or(e);
}

// The request's offsets, resolved (names, or ids from v6), and the response
// with a slot per offset; unknown topics are answered in place.
struct Prepared {
  group::TxnOffsetCommitParams params;
  TxnOffsetCommitResponse resp;
  OffsetSlots slots;
};

std::shared_ptr<Prepared> prepare(BrokerServices& services, const protocol::TxnOffsetCommitRequest& body,
                                  int16_t version, const std::function<bool(const std::string&)>& may_read) {
  auto p = std::make_shared<Prepared>();
  auto& params = p->params;
  params.group_id = body.group_id;
  params.producer_id = body.producer_id;
  params.producer_epoch = body.producer_epoch;
  params.generation_id = version >= 3 ? body.generation_id_or_member_epoch : -1;
  params.member_id = version >= 3 ? body.member_id : "";
  params.group_instance_id = version >= 3 ? body.group_instance_id : std::nullopt;
  params.api_version = version;
  const int64_t now = wall_clock_ms();
  p->slots = resolve_committed_offsets(
      services, body, version >= 6, may_read,
      [&](const auto& part) { return committed_offset(part, version >= 2, now); }, p->resp, params);
  return p;
}

}  // namespace

// WRITE on the transactional id, READ on the group, READ on each topic, as
// KafkaApis.handleTxnOffsetCommitRequest (the first two refuse the request).
void TxnOffsetCommitHandler::handle(ApiRequest& request, protocol::TxnOffsetCommitRequest& body, Responder& out) {
  if (!authorized(services_, request, AclOperation::kWrite, ResourceType::kTransactionalId, body.transactional_id)) {
    out.send(error_response(body, ErrorCode::kTransactionalIdAuthorizationFailed));
    return;
  }
  if (!authorized_group(services_, request, AclOperation::kRead, body.group_id)) {
    out.send(error_response(body, ErrorCode::kGroupAuthorizationFailed));
    return;
  }
  const int16_t version = request.api_version();
  auto p = prepare(services_, body, version, [&](const std::string& topic) {
    return authorized_topic(services_, request, AclOperation::kRead, topic);
  });
  if (p->params.offsets.empty() || services_.txn_gate == nullptr || services_.groups == nullptr) {
    if (!p->params.offsets.empty()) answer_offsets(p->resp, p->slots, ErrorCode::kCoordinatorNotAvailable);
    out.send(p->resp);
    return;
  }
  txn::TxnProduceGate::Check check;
  check.transactional_id = body.transactional_id;
  check.producer_id = body.producer_id;
  check.epoch = body.producer_epoch;
  const int32_t partition = services_.groups->offsets_partition_for(body.group_id);
  check.partitions.insert({"__consumer_offsets", partition});
  check.implicit_add = version >= 5;
  auto* groups = services_.groups;
  auto on_checked = [p, out, groups, version](const std::map<txn::TopicPartition, ErrorCode>& r) mutable {
    ErrorCode gate = ErrorCode::kNone;
    for (const auto& [tp, e] : r)
      if (e != ErrorCode::kNone) gate = gate_error(e, version);
    if (gate != ErrorCode::kNone)
      answer_offsets(p->resp, p->slots, gate);
    else
      answer_offsets(p->resp, p->slots, groups->commit_txn_offsets(p->params));
    out.send(p->resp);
  };
  services_.txn_gate->check(std::move(check), std::move(on_checked));
}

TxnOffsetCommitResponse TxnOffsetCommitHandler::error_response(const protocol::TxnOffsetCommitRequest& body,
                                                               ErrorCode error) {
  return every_partition_answered<TxnOffsetCommitResponse>(body, error);
}

}  // namespace skiff::api
