// The authorization checks handlers make, Kafka's AuthHelper: each asks the
// broker's authorizer (security/acl/authorizer.h) about the request's principal and
// peer address. Without an authorizer (authorizer.class.name unset) every
// check passes at the cost of one pointer test, and the authorized-operations
// bitfields are Kafka's "everything supported" answer.
// Thread-safe (the authorizer is).
#pragma once

#include <string>
#include <string_view>

#include "api/api_request.h"
#include "api/broker_services.h"
#include "api/topics.h"
#include "security/acl/authorized_operations.h"
#include "security/acl/authorizer.h"

namespace skiff::api {

// The ACL vocabulary (security/acl/authorized_operations.h), spoken by every
// handler that checks a request.
using acl::AclOperation;
using acl::authorized_operations;
using acl::kClusterResourceName;
using acl::ResourceType;
using acl::supported_operations;

inline acl::Identity identity_of(const ApiRequest& request) {
  return {request.context().principal, request.context().peer_address};
}

// For work that outlives the request (another thread's): a copy of who asked.
struct Asker {
  std::string principal;
  std::string host;
  acl::Identity identity() const { return {principal, host}; }
};
inline Asker asker_of(const ApiRequest& request) {
  return {request.context().principal, request.context().peer_address};
}
inline bool authorized_as(const BrokerServices& s, const Asker& who, AclOperation op, ResourceType type,
                          std::string_view name) {
  return !s.authorizer || s.authorizer->authorize(who.identity(), op, type, name);
}

inline bool authorized(const BrokerServices& s, const ApiRequest& request, AclOperation op, ResourceType type,
                       std::string_view name) {
  return !s.authorizer || s.authorizer->authorize(identity_of(request), op, type, name);
}

inline bool authorized_cluster(const BrokerServices& s, const ApiRequest& request, AclOperation op) {
  return authorized(s, request, op, ResourceType::kCluster, kClusterResourceName);
}

inline bool authorized_topic(const BrokerServices& s, const ApiRequest& request, AclOperation op,
                             std::string_view topic) {
  return authorized(s, request, op, ResourceType::kTopic, topic);
}

inline bool authorized_group(const BrokerServices& s, const ApiRequest& request, AclOperation op,
                             std::string_view group) {
  return authorized(s, request, op, ResourceType::kGroup, group);
}

// Auto-creating a topic: CREATE on the cluster or on the topic, as Kafka's Metadata.
inline bool may_create_topic(const BrokerServices& s, const ApiRequest& request, std::string_view topic) {
  return authorized_cluster(s, request, AclOperation::kCreate) ||
         authorized_topic(s, request, AclOperation::kCreate, topic);
}

// find_topic, auto-creating only for a principal that may create it. Only a
// missing topic costs the CREATE checks.
inline ErrorCode find_topic_or_create(BrokerServices& s, const ApiRequest& request, const std::string& topic) {
  auto error = find_topic(s, topic, /*allow_create=*/false).error;
  if (error == ErrorCode::kUnknownTopicOrPartition && may_create_topic(s, request, topic))
    error = find_topic(s, topic, /*allow_create=*/true).error;
  return error;
}

// The config APIs' check (DESCRIBE_CONFIGS or ALTER_CONFIGS): on the cluster
// for BROKER (4), BROKER_LOGGER (8) and CLIENT_METRICS (16) resources, else on
// the TOPIC (2) or GROUP (32). The refusal's error, as Kafka's
// configsAuthorizationApiError; kNone: allowed (or a type the handler refuses itself).
inline ErrorCode config_refusal(const BrokerServices& s, const ApiRequest& request, AclOperation op,
                                int8_t config_resource_type, std::string_view name) {
  switch (config_resource_type) {
    case 2:
      return authorized_topic(s, request, op, name) ? ErrorCode::kNone : ErrorCode::kTopicAuthorizationFailed;
    case 32:
      return authorized_group(s, request, op, name) ? ErrorCode::kNone : ErrorCode::kGroupAuthorizationFailed;
    case 4:
    case 8:
    case 16:
      return authorized_cluster(s, request, op) ? ErrorCode::kNone : ErrorCode::kClusterAuthorizationFailed;
    default:
      return ErrorCode::kNone;
  }
}

// Authorizer.authorizeByResourceType: `op` on at least one resource of `type`.
inline bool authorized_any(const BrokerServices& s, const ApiRequest& request, AclOperation op, ResourceType type) {
  return !s.authorizer || s.authorizer->authorize_any(identity_of(request), op, type);
}

// The authorized-operations bitfield of one resource (AuthHelper.authorizedOperations).
inline int32_t authorized_ops(const BrokerServices& s, const ApiRequest& request, ResourceType type,
                              std::string_view name) {
  return s.authorizer ? s.authorizer->authorized_operations(identity_of(request), type, name)
                      : authorized_operations(type);
}

}  // namespace skiff::api
