// The config resources v3 shares between topics and brokers (kafka-rest's
// AbstractConfigData): DescribeConfigs through RestKafka and the JSON of
// one config entry ("name", "value" (null when sensitive), "is_default",
// "is_read_only", "is_sensitive", "source", "synonyms").
// Threads: the caller's (a worker).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "client/in_process_client.h"
#include "common/json_writer.h"
#include "protocol/generated/describe_configs_response.h"

namespace skiff::restproxy {

inline constexpr int8_t kTopicResourceType = 2;
inline constexpr int8_t kBrokerResourceType = 4;

// The configs of one resource (all, or the one named `key`); Kafka errors thrown as RestError.
std::vector<protocol::DescribeConfigsResponse::DescribeConfigsResourceResult> describe_configs(
    client::InProcessClient& kafka, int8_t type, const std::string& name, const std::optional<std::string>& key);
// Kafka's ConfigEntry.ConfigSource name of a DescribeConfigs source code.
const char* config_source_name(int8_t source);
// The fields AbstractConfigData shares (after the resource's own).
void write_config_fields(JsonWriter& w, const protocol::DescribeConfigsResponse::DescribeConfigsResourceResult& c);
// IncrementalAlterConfigs of one resource: (name, value) pairs, a value of
// nullopt deleting (resetting) that name. Kafka errors thrown as RestError.
void alter_configs(client::InProcessClient& kafka, int8_t type, const std::string& name,
                   const std::vector<std::pair<std::string, std::optional<std::string>>>& changes, bool validate_only);

}  // namespace skiff::restproxy
