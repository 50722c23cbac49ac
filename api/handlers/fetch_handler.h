// Fetch (key 1), v4-18 (from v13 partitions are named by topic id, as the
// Java client sends them). v18's HighWatermark per partition (KIP-1166) is a
// follower's: Kafka 4.4 reads it only in its KRaft quorum's fetches
// (KafkaRaftClient), never for partition data, so it is accepted and unused.
// Record data go from the segment files to the socket with sendfile. When fewer than min_bytes are available the fetch
// waits in the purgatory — without holding a handler thread — until an
// append makes enough available or max_wait_ms passes.
//
// Tiered storage: partitions whose fetch offset is below the local log start
// are read from remote storage on the remote reader pool (Kafka's
// DelayedRemoteFetch, bounded by remote.fetch.max.wait.ms; fetch_handler.cc).
//
// Fetch sessions (KIP-227): Skiff answers sessionless. It never creates a
// session (session_id 0 in every response, which the protocol allows a broker
// to do), so clients keep sending full fetch requests; a request naming a
// session id gets FETCH_SESSION_ID_NOT_FOUND.
#pragma once

#include <optional>
#include <vector>

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "api/fetch_reader.h"
#include "protocol/generated/fetch_request.h"
#include "protocol/generated/fetch_response.h"

namespace skiff::api {

struct FetchQuota;

class FetchHandler : public TypedApiHandler<protocol::FetchRequest, protocol::FetchResponse> {
 public:
  explicit FetchHandler(BrokerServices& services)
      : TypedApiHandler(protocol::FetchRequest::kApiKey, 4, 18), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::FetchRequest& body, Responder& out) override;
  protocol::FetchResponse error_response(const protocol::FetchRequest& body, ErrorCode error) override;

 private:
  // Answers once the remote reads are done or remote.fetch.max.wait.ms passed.
  void fetch_remote(FetchReader reader, std::vector<RemoteReadRequest> reads, Responder out,
                    std::optional<FetchQuota> quota);

  BrokerServices& services_;
};

}  // namespace skiff::api
