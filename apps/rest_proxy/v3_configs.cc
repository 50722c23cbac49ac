#include "apps/rest_proxy/v3_configs.h"

#include "apps/rest_proxy/rest_kafka_errors.h"
#include "protocol/generated/describe_configs_request.h"
#include "protocol/generated/incremental_alter_configs_request.h"
#include "protocol/generated/incremental_alter_configs_response.h"

namespace skiff::restproxy {

std::vector<protocol::DescribeConfigsResponse::DescribeConfigsResourceResult> describe_configs(
    client::InProcessClient& kafka, int8_t type, const std::string& name, const std::optional<std::string>& key) {
  protocol::DescribeConfigsRequest req;
  auto& r = req.resources.emplace_back();
  r.resource_type = type;
  r.resource_name = name;
  if (key)
    r.configuration_keys = std::vector<std::string>{*key};
  else
    r.configuration_keys = std::nullopt;
  req.include_synonyms = true;
  auto resp = kafka.call<protocol::DescribeConfigsResponse>(req, 4);
  std::vector<protocol::DescribeConfigsResponse::DescribeConfigsResourceResult> out;
  for (auto& result : resp.results) {
    throw_kafka_error(result.error_code, result.error_message);
    for (auto& c : result.configs) out.push_back(std::move(c));
  }
  return out;
}

const char* config_source_name(int8_t source) {
  switch (source) {
    case 1:
      return "DYNAMIC_TOPIC_CONFIG";
    case 2:
      return "DYNAMIC_BROKER_CONFIG";
    case 3:
      return "DYNAMIC_DEFAULT_BROKER_CONFIG";
    case 4:
      return "STATIC_BROKER_CONFIG";
    case 5:
      return "DEFAULT_CONFIG";
    case 6:
      return "DYNAMIC_BROKER_LOGGER_CONFIG";
    case 7:
      return "CLIENT_METRICS_CONFIG";
    case 8:
      return "GROUP_CONFIG";
    default:
      return "UNKNOWN";
  }
}

void write_config_fields(JsonWriter& w, const protocol::DescribeConfigsResponse::DescribeConfigsResourceResult& c) {
  w.field("name", c.name);
  if (c.is_sensitive)
    w.key("value").null();
  else
    w.field("value", c.value);
  w.field("is_default", c.config_source == 5).field("is_read_only", c.read_only);
  w.field("is_sensitive", c.is_sensitive).field("source", config_source_name(c.config_source));
  w.key("synonyms").begin_array();
  for (const auto& s : c.synonyms) {
    w.begin_object().field("name", s.name);
    if (c.is_sensitive)
      w.key("value").null();
    else
      w.field("value", s.value);
    w.field("source", config_source_name(s.source)).end_object();
  }
  w.end_array();
}

void alter_configs(client::InProcessClient& kafka, int8_t type, const std::string& name,
                   const std::vector<std::pair<std::string, std::optional<std::string>>>& changes, bool validate_only) {
  protocol::IncrementalAlterConfigsRequest req;
  req.validate_only = validate_only;
  auto& r = req.resources.emplace_back();
  r.resource_type = type;
  r.resource_name = name;
  for (const auto& [key, value] : changes) {
    auto& c = r.configs.emplace_back();
    c.name = key;
    c.config_operation = value ? 0 : 1;  // SET, DELETE
    c.value = value;
  }
  auto resp = kafka.call<protocol::IncrementalAlterConfigsResponse>(req, 1);
  for (const auto& result : resp.responses) throw_kafka_error(result.error_code, result.error_message);
}

}  // namespace skiff::restproxy
