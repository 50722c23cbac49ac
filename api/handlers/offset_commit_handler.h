// OffsetCommit (key 8), v2-10: stores committed offsets with their leader
// epoch and metadata; answered only once the commit is on disk (fsync).
// v10 names topics by id (KIP-848): an unknown id is UNKNOWN_TOPIC_ID.
// v0-1 are not advertised: Kafka 4 removed them (KIP-896).
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/offset_commit_request.h"
#include "protocol/generated/offset_commit_response.h"

namespace skiff::api {

class OffsetCommitHandler : public TypedApiHandler<protocol::OffsetCommitRequest, protocol::OffsetCommitResponse> {
 public:
  explicit OffsetCommitHandler(BrokerServices& services)
      : TypedApiHandler(protocol::OffsetCommitRequest::kApiKey, 2, 10), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::OffsetCommitRequest& body, Responder& out) override;
  protocol::OffsetCommitResponse error_response(const protocol::OffsetCommitRequest& body, ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
