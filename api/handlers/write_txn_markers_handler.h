// WriteTxnMarkers (key 27), v1-2: COMMIT/ABORT control batches written on
// request. In Kafka the coordinator sends it to partition leaders; on a single
// node Skiff's coordinator writes its markers directly (coordinator/txn/txn_marker_writer.h),
// so the callers here are tools: `kafka-transactions abort` ends a hanging
// transaction (one its coordinator no longer knows) this way. Each partition
// gets a marker through storage::Log::append_marker with the request's
// producer id, epoch and coordinator epoch (the log checks the epochs, as
// Kafka's does); `__consumer_offsets` partitions go to the group
// coordinator's TxnOffsetMarkerSink (KIP-447).
//
// Threads: handler threads; log partitions are written synchronously (as
// Produce appends), the sink may complete later on another thread, and the
// answer goes out once every partition is done.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/write_txn_markers_request.h"
#include "protocol/generated/write_txn_markers_response.h"

namespace skiff::api {

class WriteTxnMarkersHandler
    : public TypedApiHandler<protocol::WriteTxnMarkersRequest, protocol::WriteTxnMarkersResponse> {
 public:
  explicit WriteTxnMarkersHandler(BrokerServices& services)
      : TypedApiHandler(protocol::WriteTxnMarkersRequest::kApiKey, 1, 2), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::WriteTxnMarkersRequest& body, Responder& out) override;
  protocol::WriteTxnMarkersResponse error_response(const protocol::WriteTxnMarkersRequest& body,
                                                   ErrorCode error) override;

 private:
  ErrorCode append(const protocol::WriteTxnMarkersRequest::WritableTxnMarker& m, const std::string& topic,
                   int32_t partition);
  BrokerServices& services_;
};

}  // namespace skiff::api
