// Kafka errors as Confluent's REST Proxy answers them (rest-utils'
// KafkaExceptionMapper over the exception Kafka's client raises for the
// code): authentication 401/40101, authorization 403/40301, an unknown
// topic or partition 404/40403, an unknown group 404/40404, invalid
// requests (bad topic, partitions, replication factor, config, policy, a
// topic that exists, a record too large) 400/40002, throttling 429/42901,
// an unavailable broker 503/50302, other retriable errors 500/50003,
// anything else 500/50002. The message is Kafka's (its name when none).
// Pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "apps/rest_proxy/rest_errors.h"

namespace skiff::restproxy {

RestError kafka_rest_error(int16_t code, const std::optional<std::string>& message);
// Throws kafka_rest_error(code, message) unless code is 0.
void throw_kafka_error(int16_t code, const std::optional<std::string>& message = std::nullopt);

}  // namespace skiff::restproxy
