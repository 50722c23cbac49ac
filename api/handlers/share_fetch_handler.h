// ShareFetch (key 78), v1-2 (KIP-932): a share consumer's fetch. It opens,
// continues or closes the member's share session (ShareSessionCache epochs),
// applies the acknowledgements it carries, then acquires records for the
// member in the session's partitions: each partition's log is read from the
// share partition's next fetch offset (as Fetch reads it: whole batches, a
// zero-copy file region), the share partition acquires among the batches
// read, and the answer carries the records with their AcquiredRecords ranges
// and the group's AcquisitionLockTimeoutMs. A fetch that acquires nothing
// waits in the fetch purgatory (max_wait_ms, min_bytes) like a delayed Fetch,
// woken by appends to its partitions and by records of its share partitions
// becoming acquirable again (share_api::share_fetch_waker).
//
// Authorization: READ on the group (else GROUP_AUTHORIZATION_FAILED, top
// level), READ on each topic (TOPIC_AUTHORIZATION_FAILED per partition).
// Not registered in KafkaApis yet: the integrator registers it once share
// group membership works, constructing it with the SharePartitionManager.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/share_fetch_request.h"
#include "protocol/generated/share_fetch_response.h"
#include "share/share_partition_manager.h"

namespace skiff::api {

class ShareFetchHandler : public TypedApiHandler<protocol::ShareFetchRequest, protocol::ShareFetchResponse> {
 public:
  ShareFetchHandler(BrokerServices& services, share::SharePartitionManager& shares)
      : TypedApiHandler(protocol::ShareFetchRequest::kApiKey, 1, 2), services_(services), shares_(shares) {}

 protected:
  void handle(ApiRequest& request, protocol::ShareFetchRequest& body, Responder& out) override;
  protocol::ShareFetchResponse error_response(const protocol::ShareFetchRequest& body, ErrorCode error) override;

 private:
  BrokerServices& services_;
  share::SharePartitionManager& shares_;
};

}  // namespace skiff::api
