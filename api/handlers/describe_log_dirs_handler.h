// DescribeLogDirs (key 35), v1-5: each log dir with its partitions' sizes
// (all of them, or those asked for), and v4+ the dir's total/usable bytes.
// v5 adds IsCordoned (KIP-1066): Skiff has no cordoned.log.dirs, so no dir is
// ever cordoned and the field is false, as Kafka 4.4 answers by default.
// A partition being moved (AlterReplicaLogDirs) is listed in its current dir
// and, as its future replica (IsFutureKey, the bytes copied so far), in the
// destination.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/describe_log_dirs_request.h"
#include "protocol/generated/describe_log_dirs_response.h"

namespace skiff::api {

class DescribeLogDirsHandler
    : public TypedApiHandler<protocol::DescribeLogDirsRequest, protocol::DescribeLogDirsResponse> {
 public:
  explicit DescribeLogDirsHandler(BrokerServices& services)
      : TypedApiHandler(protocol::DescribeLogDirsRequest::kApiKey, 1, 5), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::DescribeLogDirsRequest& body, Responder& out) override;
  protocol::DescribeLogDirsResponse error_response(const protocol::DescribeLogDirsRequest& body,
                                                   ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
