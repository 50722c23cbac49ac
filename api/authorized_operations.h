// The authorized-operations bitfields of Metadata, DescribeCluster,
// DescribeTopicPartitions and DescribeGroups. Skiff has no authorizer, so,
// as Kafka without one (AuthHelper.authorizedOperations), every operation
// Kafka supports on the resource type is allowed: AclEntry.supportedOperations,
// one bit per AclOperation code. Kafka 4.4 answers 8096 for the cluster,
// 3576 for a topic and 3400 for a group.
// Threads: constants only.
#pragma once

#include <cstdint>
#include <initializer_list>

namespace skiff::api {

// Kafka's AclOperation codes (org.apache.kafka.common.acl.AclOperation).
enum class AclOperation : int8_t {
  kRead = 3,
  kWrite = 4,
  kCreate = 5,
  kDelete = 6,
  kAlter = 7,
  kDescribe = 8,
  kClusterAction = 9,
  kDescribeConfigs = 10,
  kAlterConfigs = 11,
  kIdempotentWrite = 12,
  kCreateTokens = 13,
  kDescribeTokens = 14,
};

enum class AclResource { kCluster, kTopic, kGroup };

// The bitfield of operations a client may perform on a resource of this kind.
constexpr int32_t authorized_operations(AclResource resource) {
  using enum AclOperation;
  auto bits = [](std::initializer_list<AclOperation> ops) {
    int32_t v = 0;
    for (auto op : ops) v |= int32_t{1} << static_cast<int>(op);
    return v;
  };
  switch (resource) {
    case AclResource::kCluster:
      return bits({kCreate, kClusterAction, kDescribeConfigs, kAlterConfigs, kIdempotentWrite, kAlter, kDescribe});
    case AclResource::kTopic:
      return bits({kRead, kWrite, kCreate, kDescribe, kDelete, kAlter, kDescribeConfigs, kAlterConfigs});
    case AclResource::kGroup:
      return bits({kRead, kDescribe, kDelete, kDescribeConfigs, kAlterConfigs});
  }
  return 0;
}

}  // namespace skiff::api
