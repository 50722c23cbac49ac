#include "api/handlers/init_producer_id_handler.h"

#include "api/admin/producer_ids.h"
#include "api/api_log.h"
#include "common/log_escape.h"

namespace skiff::api {
namespace {

protocol::InitProducerIdResponse answer(ErrorCode error, int64_t id = -1, int16_t epoch = -1) {
  protocol::InitProducerIdResponse r;
  r.error_code = code(error);
  r.producer_id = id;
  r.producer_epoch = epoch;
  return r;
}

}  // namespace

void InitProducerIdHandler::handle(ApiRequest& request, protocol::InitProducerIdRequest& body, Responder& out) {
  if (body.transactional_id && !body.transactional_id->empty()) {
    // Kafka has no message field here; a client sees "The transactional id
    // is not authorized", which at least names the transactional id.
    api_log().warn("InitProducerId with transactional.id '{}' from {}: Skiff does not support transactions yet",
                   escaped(*body.transactional_id), request.context().peer_address);
    out.send(answer(ErrorCode::kTransactionalIdAuthorizationFailed));
    return;
  }
  if (!services_.producer_ids) {
    out.send(answer(ErrorCode::kUnknownServerError));
    return;
  }
  auto r = services_.producer_ids->init(body.producer_id, body.producer_epoch);
  if (r.error != ErrorCode::kNone) {
    out.send(answer(r.error));
    return;
  }
  out.send(answer(ErrorCode::kNone, r.producer_id, r.epoch));
}

protocol::InitProducerIdResponse InitProducerIdHandler::error_response(const protocol::InitProducerIdRequest&,
                                                                      ErrorCode error) {
  return answer(error);
}

}  // namespace skiff::api
