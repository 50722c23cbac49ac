// ListOffsets (key 2), v1-11: earliest (-2, the log start, remote data
// included), latest (-1), max timestamp (-3, v7+, the local segments' as
// Kafka's), earliest-local (-4, v8+: the local log start), latest-tiered
// (-5, v9+: the highest offset in remote storage, or -1) and
// earliest-pending-upload (-6, v11+: the first offset not yet uploaded), as
// Kafka 4.4's UnifiedLog answers them; and by timestamp through the time
// index. With tiered storage a timestamp lookup reads remote storage's time
// indexes first, on the remote reader pool (api/remote_reads.h), bounded by
// remote.list.offsets.request.timeout.ms (REQUEST_TIMED_OUT). A special
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
