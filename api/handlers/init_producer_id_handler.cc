#include "api/handlers/init_producer_id_handler.h"

#include "api/api_log.h"
#include "api/authorize.h"
#include "common/log_escape.h"
#include "coordinator/txn/producer_ids.h"
#include "coordinator/txn/txn_host.h"

namespace skiff::api {
namespace {

protocol::InitProducerIdResponse init_pid_answer(ErrorCode error, int64_t id = -1, int16_t epoch = -1) {
  protocol::InitProducerIdResponse r;
  r.error_code = code(error);
  r.producer_id = id;
  r.producer_epoch = epoch;
  return r;
}

}  // namespace

void InitProducerIdHandler::handle_transactional(ApiRequest& request, protocol::InitProducerIdRequest& body,
                                                 Responder& out) {
  // Kafka: an id without an epoch (or the reverse) is malformed.
  if ((body.producer_id == -1) != (body.producer_epoch == -1)) {
    out.send(init_pid_answer(ErrorCode::kInvalidRequest));
    return;
  }
  std::optional<txn::ProducerIdAndEpoch> expected;
  if (body.producer_id != -1) expected = txn::ProducerIdAndEpoch{body.producer_id, body.producer_epoch};
  const int16_t version = request.api_version();
  auto work = [id = *body.transactional_id, timeout = body.transaction_timeout_ms, expected, version,
               out](txn::TxnCoordinator& c) mutable {
    c.init_producer_id(id, timeout, expected, [out, version](txn::TxnResult r) mutable {
      auto e = txn::fenced_error_for_version(r.error, version, 4);
      out.send(e == ErrorCode::kNone ? init_pid_answer(e, r.producer_id, r.epoch) : init_pid_answer(e));
    });
  };
  services_.txn->submit(std::move(work), [out](ErrorCode e) mutable { out.send(init_pid_answer(e)); });
}

// Transactional: WRITE on the transactional id (TRANSACTIONAL_ID_AUTHORIZATION_FAILED).
// Idempotent: IDEMPOTENT_WRITE on the cluster or WRITE on some topic
// (CLUSTER_AUTHORIZATION_FAILED), as KafkaApis.handleInitProducerIdRequest.
void InitProducerIdHandler::handle(ApiRequest& request, protocol::InitProducerIdRequest& body, Responder& out) {
  if (body.transactional_id &&
      !authorized(services_, request, AclOperation::kWrite, ResourceType::kTransactionalId, *body.transactional_id)) {
    out.send(init_pid_answer(ErrorCode::kTransactionalIdAuthorizationFailed));
    return;
  }
  if (!body.transactional_id && !authorized_cluster(services_, request, AclOperation::kIdempotentWrite) &&
      !authorized_any(services_, request, AclOperation::kWrite, ResourceType::kTopic)) {
    out.send(init_pid_answer(ErrorCode::kClusterAuthorizationFailed));
    return;
  }
  if (body.transactional_id) {  // empty: INVALID_REQUEST from the coordinator, as Kafka
    if (!services_.txn) {
      out.send(init_pid_answer(ErrorCode::kCoordinatorNotAvailable));
      return;
    }
    handle_transactional(request, body, out);
    return;
  }
  if (!services_.producer_ids) {
    out.send(init_pid_answer(ErrorCode::kUnknownServerError));
    return;
  }
  auto r = services_.producer_ids->init(body.producer_id, body.producer_epoch);
  if (r.error != ErrorCode::kNone) {
    out.send(init_pid_answer(r.error));
    return;
  }
  out.send(init_pid_answer(ErrorCode::kNone, r.producer_id, r.epoch));
}

protocol::InitProducerIdResponse InitProducerIdHandler::error_response(const protocol::InitProducerIdRequest&,
                                                                       ErrorCode error) {
  return init_pid_answer(error);
}

}  // namespace skiff::api
