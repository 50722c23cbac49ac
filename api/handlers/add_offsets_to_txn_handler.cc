#include "api/handlers/add_offsets_to_txn_handler.h"

#include "api/authorize.h"
#include "coordinator/txn/txn_host.h"

namespace skiff::api {
namespace {

protocol::AddOffsetsToTxnResponse add_offsets_answer(ErrorCode e) {
  protocol::AddOffsetsToTxnResponse r;
  r.error_code = code(e);
  return r;
}

}  // namespace

// WRITE on the transactional id, then READ on the group (KafkaApis).
void AddOffsetsToTxnHandler::handle(ApiRequest& request, protocol::AddOffsetsToTxnRequest& body, Responder& out) {
  if (!authorized(services_, request, AclOperation::kWrite, ResourceType::kTransactionalId, body.transactional_id)) {
    out.send(add_offsets_answer(ErrorCode::kTransactionalIdAuthorizationFailed));
    return;
  }
  if (!authorized_group(services_, request, AclOperation::kRead, body.group_id)) {
    out.send(add_offsets_answer(ErrorCode::kGroupAuthorizationFailed));
    return;
  }
  if (!services_.txn) {
    out.send(add_offsets_answer(ErrorCode::kCoordinatorNotAvailable));
    return;
  }
  const int16_t version = request.api_version();
  auto work = [body, version, out](txn::TxnCoordinator& c) mutable {
    c.add_offsets(body.transactional_id, body.producer_id, body.producer_epoch, body.group_id,
                  [out, version](ErrorCode e) mutable {
                    out.send(add_offsets_answer(txn::fenced_error_for_version(e, version, 2)));
                  });
  };
  services_.txn->submit(std::move(work), [out](ErrorCode e) mutable { out.send(add_offsets_answer(e)); });
}

protocol::AddOffsetsToTxnResponse AddOffsetsToTxnHandler::error_response(const protocol::AddOffsetsToTxnRequest&,
                                                                         ErrorCode error) {
  return add_offsets_answer(error);
}

}  // namespace skiff::api
