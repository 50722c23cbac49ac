// DeleteRecords (key 21), v0-2: moves each partition's log start offset
// (-1 = the high watermark), deletes whole segments below it, then forces a
// log-start-offset checkpoint so the move survives a crash.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/delete_records_request.h"
#include "protocol/generated/delete_records_response.h"

namespace skiff::api {

class DeleteRecordsHandler : public TypedApiHandler<protocol::DeleteRecordsRequest, protocol::DeleteRecordsResponse> {
 public:
  explicit DeleteRecordsHandler(BrokerServices& services)
      : TypedApiHandler(protocol::DeleteRecordsRequest::kApiKey, 0, 2), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::DeleteRecordsRequest& body, Responder& out) override;
  protocol::DeleteRecordsResponse error_response(const protocol::DeleteRecordsRequest& body, ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
