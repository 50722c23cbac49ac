// AlterReplicaLogDirs (key 34), v1-2: moves partitions between this node's
// log dirs (log.dirs), online, as Kafka's future replica does
// (log/replica_dir_mover.h). The answer comes at once; the move runs in the
// background and DescribeLogDirs shows it (IsFutureKey) until it is done.
// Errors as Kafka's ReplicaManager.alterReplicaLogDirs: LOG_DIR_NOT_FOUND for
// a path that is not one of log.dirs (checked first), UNKNOWN_TOPIC_OR_PARTITION,
// KAFKA_STORAGE_ERROR when the destination cannot be used.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/alter_replica_log_dirs_request.h"
#include "protocol/generated/alter_replica_log_dirs_response.h"

namespace skiff::api {

class AlterReplicaLogDirsHandler
    : public TypedApiHandler<protocol::AlterReplicaLogDirsRequest, protocol::AlterReplicaLogDirsResponse> {
 public:
  explicit AlterReplicaLogDirsHandler(BrokerServices& services)
      : TypedApiHandler(protocol::AlterReplicaLogDirsRequest::kApiKey, 1, 2), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::AlterReplicaLogDirsRequest& body, Responder& out) override;
  protocol::AlterReplicaLogDirsResponse error_response(const protocol::AlterReplicaLogDirsRequest& body,
                                                       ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
