// Calls and lookups that several handler tests (tests/api) make: one
// definition each, since a unity batch compiles several test files as one
// translation unit and two files may not define the same name.
#pragma once

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "protocol/generated/describe_configs_request.h"
#include "protocol/generated/describe_configs_response.h"
#include "protocol/generated/produce_response.h"
#include "tests/api/api_harness.h"

namespace skiff::test {

using ConfigEntry = protocol::DescribeConfigsResponse::DescribeConfigsResourceResult;

// DescribeConfigs of one resource (type: 2 topic, 4 broker, 8 broker logger,
// 32 group), with synonyms, and documentation from v3.
inline protocol::DescribeConfigsResponse::DescribeConfigsResult describe_config(ApiHarness& h, int8_t type,
                                                                                const std::string& name,
                                                                                int16_t version = 4) {
  protocol::DescribeConfigsRequest req;
  protocol::DescribeConfigsRequest::DescribeConfigsResource r;
  r.resource_type = type;
  r.resource_name = name;
  r.configuration_keys = std::nullopt;
  req.resources.push_back(r);
  req.include_synonyms = true;
  req.include_documentation = version >= 3;
  auto resp = h.call<protocol::DescribeConfigsResponse>(req, version);
  REQUIRE(resp.results.size() == 1);
  return resp.results[0];
}

// The entry named `key`, or null.
inline const ConfigEntry* find_config(const std::vector<ConfigEntry>& configs, const std::string& key) {
  for (const auto& c : configs)
    if (c.name == key) return &c;
  return nullptr;
}

// The one partition's answer of a Produce response for one partition.
inline const protocol::ProduceResponse::PartitionProduceResponse& only_partition(const protocol::ProduceResponse& r) {
  REQUIRE(r.responses.size() == 1);
  REQUIRE(r.responses[0].partition_responses.size() == 1);
  return r.responses[0].partition_responses[0];
}

}  // namespace skiff::test
