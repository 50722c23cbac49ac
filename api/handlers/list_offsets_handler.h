// ListOffsets (key 2), v1-11: earliest (-2), latest (-1), max timestamp (-3,
// v7+), earliest-local (-4, v8+: the earliest, there is no tiered storage),
// latest-tiered (-5, v9+) and earliest-pending-upload (-6, v11+: offset -1,
// nothing is tiered), and by timestamp through the time index. A special
// timestamp before its version, or an unknown one, is UNSUPPORTED_VERSION.
// read_committed answers the last stable offset, which equals the high
// watermark while there are no transactions.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/list_offsets_request.h"
#include "protocol/generated/list_offsets_response.h"

namespace skiff::api {

class ListOffsetsHandler : public TypedApiHandler<protocol::ListOffsetsRequest, protocol::ListOffsetsResponse> {
 public:
  explicit ListOffsetsHandler(BrokerServices& services)
      : TypedApiHandler(protocol::ListOffsetsRequest::kApiKey, 1, 11), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::ListOffsetsRequest& body, Responder& out) override;
  protocol::ListOffsetsResponse error_response(const protocol::ListOffsetsRequest& body, ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
