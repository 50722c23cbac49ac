// Kafka's ACL vocabulary (org.apache.kafka.common.acl / .resource): the codes
// of operations and resource types as the wire carries them, and the
// operations Kafka supports per resource type (AclEntry.supportedOperations).
// Without an authorizer, as Kafka without one (AuthHelper.authorizedOperations),
// every supported operation is allowed: Kafka 4.4 answers 8096 for the
// cluster, 3576 for a topic and 3400 for a group. With one, the
// authorized-operations fields are computed per operation (api/authorize.h).
// Threads: constants only.
#pragma once

#include <cstdint>
#include <initializer_list>

namespace skiff::acl {

// Kafka's AclOperation codes (org.apache.kafka.common.acl.AclOperation).
enum class AclOperation : int8_t {
  kUnknown = 0,
  kAny = 1,  // filters only
  kAll = 2,
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
  kTwoPhaseCommit = 15,
};
constexpr int kAclOperationCount = 16;

// Kafka's ResourceType codes (org.apache.kafka.common.resource.ResourceType).
enum class ResourceType : int8_t {
  kUnknown = 0,
  kAny = 1,  // filters only
  kTopic = 2,
  kGroup = 3,
  kCluster = 4,
  kTransactionalId = 5,
  kDelegationToken = 6,
  kUser = 7,
};
constexpr int kResourceTypeCount = 8;

// The name of the one CLUSTER resource (Resource.CLUSTER_NAME).
inline constexpr const char* kClusterResourceName = "kafka-cluster";

constexpr int32_t operation_bits(std::initializer_list<AclOperation> ops) {
  int32_t v = 0;
  for (auto op : ops) v |= int32_t{1} << static_cast<int>(op);
  return v;
}

// AclEntry.supportedOperations as a bitfield, one bit per AclOperation code.
constexpr int32_t supported_operations(ResourceType resource) {
  using enum AclOperation;
  switch (resource) {
    case ResourceType::kCluster:
      return operation_bits(
          {kCreate, kClusterAction, kDescribeConfigs, kAlterConfigs, kIdempotentWrite, kAlter, kDescribe});
    case ResourceType::kTopic:
      return operation_bits({kRead, kWrite, kCreate, kDescribe, kDelete, kAlter, kDescribeConfigs, kAlterConfigs});
    case ResourceType::kGroup:
      return operation_bits({kRead, kDescribe, kDelete, kDescribeConfigs, kAlterConfigs});
    case ResourceType::kTransactionalId:
      return operation_bits({kDescribe, kWrite, kTwoPhaseCommit});
    case ResourceType::kDelegationToken:
      return operation_bits({kDescribe});
    case ResourceType::kUser:
      return operation_bits({kCreateTokens, kDescribeTokens});
    default:
      return 0;
  }
}

// The bitfield without an authorizer: every supported operation.
constexpr int32_t authorized_operations(ResourceType resource) { return supported_operations(resource); }

}  // namespace skiff::acl
