#include "api/handlers/end_txn_handler.h"

#include "api/authorize.h"
#include "coordinator/txn/txn_host.h"

namespace skiff::api {
namespace {

protocol::EndTxnResponse end_txn_answer(ErrorCode e, int64_t id = -1, int16_t epoch = -1) {
  protocol::EndTxnResponse r;
  r.error_code = code(e);
  r.producer_id = id;
  r.producer_epoch = epoch;
  return r;
}

}  // namespace

// WRITE on the transactional id (KafkaApis.handleEndTxnRequest).
void EndTxnHandler::handle(ApiRequest& request, protocol::EndTxnRequest& body, Responder& out) {
  if (!authorized(services_, request, AclOperation::kWrite, ResourceType::kTransactionalId, body.transactional_id)) {
    out.send(end_txn_answer(ErrorCode::kTransactionalIdAuthorizationFailed));
    return;
  }
  if (!services_.txn) {
    out.send(end_txn_answer(ErrorCode::kCoordinatorNotAvailable));
    return;
  }
  const int16_t version = request.api_version();
  const int16_t client_tv = version >= 5 ? 2 : 0;
  auto work = [body, version, client_tv, out](txn::TxnCoordinator& c) mutable {
    c.end_txn(body.transactional_id, body.producer_id, body.producer_epoch, body.committed, client_tv,
              [out, version](txn::TxnResult r) mutable {
                auto e = txn::fenced_error_for_version(r.error, version, 2);
                out.send(e == ErrorCode::kNone ? end_txn_answer(e, r.producer_id, r.epoch) : end_txn_answer(e));
              });
  };
  services_.txn->submit(std::move(work), [out](ErrorCode e) mutable { out.send(end_txn_answer(e)); });
}

protocol::EndTxnResponse EndTxnHandler::error_response(const protocol::EndTxnRequest&, ErrorCode error) {
  return end_txn_answer(error);
}

}  // namespace skiff::api
