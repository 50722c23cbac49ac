// InitProducerId (key 22), v0-5: a producer id and epoch for an idempotent
// producer (see admin/producer_ids.h: ids never reused across restarts; v3+
// epoch bumps). With a transactional.id: the transaction coordinator
// (coordinator/txn/txn_host.h), answered from its strand (incl. KIP-360 recovery and
// zombie fencing; PRODUCER_FENCED is INVALID_PRODUCER_EPOCH before v4).
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/init_producer_id_request.h"
#include "protocol/generated/init_producer_id_response.h"

namespace skiff::api {

class InitProducerIdHandler
    : public TypedApiHandler<protocol::InitProducerIdRequest, protocol::InitProducerIdResponse> {
 public:
  explicit InitProducerIdHandler(BrokerServices& services)
      : TypedApiHandler(protocol::InitProducerIdRequest::kApiKey, 0, 5), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::InitProducerIdRequest& body, Responder& out) override;
  protocol::InitProducerIdResponse error_response(const protocol::InitProducerIdRequest& body,
                                                  ErrorCode error) override;

 private:
  void handle_transactional(ApiRequest& request, protocol::InitProducerIdRequest& body, Responder& out);
  BrokerServices& services_;
};

}  // namespace skiff::api
