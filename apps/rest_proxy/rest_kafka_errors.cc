#include "apps/rest_proxy/rest_kafka_errors.h"

#include "protocol/error_names.h"

namespace skiff::restproxy {
namespace {

struct Mapped {
  int status, code;
};

// Kafka code -> (status, Confluent code); codes not listed: 500 / 50002.
constexpr struct {
  int16_t kafka;
  Mapped rest;
} kTable[] = {
    {58, {401, 40101}},   // SASL_AUTHENTICATION_FAILED
    {29, {403, 40301}},   // TOPIC_AUTHORIZATION_FAILED
    {30, {403, 40301}},   // GROUP_AUTHORIZATION_FAILED
    {31, {403, 40301}},   // CLUSTER_AUTHORIZATION_FAILED
    {53, {403, 40301}},   // TRANSACTIONAL_ID_AUTHORIZATION_FAILED
    {65, {403, 40301}},   // DELEGATION_TOKEN_AUTHORIZATION_FAILED
    {3, {404, 40403}},    // UNKNOWN_TOPIC_OR_PARTITION
    {100, {404, 40403}},  // UNKNOWN_TOPIC_ID
    {69, {404, 40404}},   // GROUP_ID_NOT_FOUND
    {36, {400, 40002}},   // TOPIC_ALREADY_EXISTS
    {17, {400, 40002}},   // INVALID_TOPIC_EXCEPTION
    {37, {400, 40002}},   // INVALID_PARTITIONS
    {38, {400, 40002}},   // INVALID_REPLICATION_FACTOR
    {39, {400, 40002}},   // INVALID_REPLICA_ASSIGNMENT
    {40, {400, 40002}},   // INVALID_CONFIG
    {42, {400, 40002}},   // INVALID_REQUEST
    {44, {400, 40002}},   // POLICY_VIOLATION
    {10, {400, 40002}},   // MESSAGE_TOO_LARGE
    {18, {400, 40002}},   // RECORD_LIST_TOO_LARGE
    {87, {400, 40002}},   // INVALID_RECORD
    {2, {400, 40002}},    // CORRUPT_MESSAGE
    {32, {400, 40002}},   // INVALID_TIMESTAMP
    {35, {400, 40002}},   // UNSUPPORTED_VERSION
    {68, {400, 40002}},   // NON_EMPTY_GROUP
    {73, {400, 40002}},   // TOPIC_DELETION_DISABLED
    {89, {429, 42901}},   // THROTTLING_QUOTA_EXCEEDED
    {8, {503, 50302}},    // BROKER_NOT_AVAILABLE
    {5, {500, 50003}},    // LEADER_NOT_AVAILABLE
    {6, {500, 50003}},    // NOT_LEADER_OR_FOLLOWER
    {7, {500, 50003}},    // REQUEST_TIMED_OUT
    {13, {500, 50003}},   // NETWORK_EXCEPTION
    {14, {500, 50003}},   // COORDINATOR_LOAD_IN_PROGRESS
    {15, {500, 50003}},   // COORDINATOR_NOT_AVAILABLE
    {16, {500, 50003}},   // NOT_COORDINATOR
    {19, {500, 50003}},   // NOT_ENOUGH_REPLICAS
    {20, {500, 50003}},   // NOT_ENOUGH_REPLICAS_AFTER_APPEND
    {41, {500, 50003}},   // NOT_CONTROLLER
    {56, {500, 50003}},   // KAFKA_STORAGE_ERROR
};

Mapped map_code(int16_t code) {
  for (const auto& row : kTable)
    if (row.kafka == code) return row.rest;
  return {500, 50002};
}

}  // namespace

RestError kafka_rest_error(int16_t code, const std::optional<std::string>& message) {
  const auto [status, rest_code] = map_code(code);
  return RestError(status, rest_code,
                   message && !message->empty() ? *message : std::string(protocol::error_name(code)));
}

void throw_kafka_error(int16_t code, const std::optional<std::string>& message) {
  if (code != 0) throw kafka_rest_error(code, message);
}

}  // namespace skiff::restproxy
