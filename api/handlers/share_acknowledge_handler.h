// ShareAcknowledge (key 79), v1-2 (KIP-932): acknowledges records a share
// consumer got from ShareFetch, in its share session (epoch n continues it,
// -1 closes it after the acknowledgements, 0 is refused). Per-partition
// errors as Kafka: INVALID_REQUEST for malformed batches, INVALID_RECORD_STATE
// with its message when the records are not the member's acquired ones,
// TOPIC_AUTHORIZATION_FAILED, UNKNOWN_TOPIC_OR_PARTITION. Answers once the
// share partitions' state writes are done.
// Not registered in KafkaApis yet (see share_fetch_handler.h).
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/share_acknowledge_request.h"
#include "protocol/generated/share_acknowledge_response.h"
#include "share/share_partition_manager.h"

namespace skiff::api {

class ShareAcknowledgeHandler
    : public TypedApiHandler<protocol::ShareAcknowledgeRequest, protocol::ShareAcknowledgeResponse> {
 public:
  ShareAcknowledgeHandler(BrokerServices& services, share::SharePartitionManager& shares)
      : TypedApiHandler(protocol::ShareAcknowledgeRequest::kApiKey, 1, 2), services_(services), shares_(shares) {}

 protected:
  void handle(ApiRequest& request, protocol::ShareAcknowledgeRequest& body, Responder& out) override;
  protocol::ShareAcknowledgeResponse error_response(const protocol::ShareAcknowledgeRequest& body,
                                                    ErrorCode error) override;

 private:
  BrokerServices& services_;
  share::SharePartitionManager& shares_;
};

}  // namespace skiff::api
