// OffsetFetch (key 9), v1-10: committed offsets of one group (v1-7) or several
// (v8+); no topics (v2+): every committed offset of the group. v10 names
// topics by id (KIP-848): an unknown id is UNKNOWN_TOPIC_ID per partition.
// require_stable (v7+) is accepted: without transactions nothing is pending.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/offset_fetch_request.h"
#include "protocol/generated/offset_fetch_response.h"

namespace skiff::api {

class OffsetFetchHandler : public TypedApiHandler<protocol::OffsetFetchRequest, protocol::OffsetFetchResponse> {
 public:
  explicit OffsetFetchHandler(BrokerServices& services)
      : TypedApiHandler(protocol::OffsetFetchRequest::kApiKey, 1, 10), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::OffsetFetchRequest& body, Responder& out) override;
  protocol::OffsetFetchResponse error_response(const protocol::OffsetFetchRequest& body, ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
