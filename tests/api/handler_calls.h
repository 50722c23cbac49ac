// Calls and lookups that several handler tests (tests/api) make: one
// definition each, since a unity batch compiles several test files as one
// translation unit and two files may not define the same name.
#pragma once

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "protocol/generated/describe_configs_request.h"
#include "protocol/generated/describe_configs_response.h"
#include "protocol/generated/fetch_request.h"
#include "protocol/generated/fetch_response.h"
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

// A Fetch of partition 0 of `topic` (by name) from `offset`.
struct FetchOf {
  int32_t partition_max = 1 << 20;
  int32_t max_wait = 0;
  int32_t min_bytes = 1;
  int32_t max_bytes = 50 << 20;
  int8_t isolation = 0;
};
inline protocol::FetchRequest fetch_request(const std::string& topic, int64_t offset, const FetchOf& f = {}) {
  protocol::FetchRequest req;
  req.max_wait_ms = f.max_wait;
  req.min_bytes = f.min_bytes;
  req.max_bytes = f.max_bytes;
  req.isolation_level = f.isolation;
  protocol::FetchRequest::FetchTopic t;
  t.topic = topic;
  protocol::FetchRequest::FetchPartition p;
  p.partition = 0;
  p.fetch_offset = offset;
  p.partition_max_bytes = f.partition_max;
  t.partitions.push_back(p);
  req.topics.push_back(t);
  return req;
}

// The one partition of a one-partition fetch answer.
inline const protocol::FetchResponse::PartitionData& only_partition(const protocol::FetchResponse& r) {
  REQUIRE(r.responses.size() == 1);
  REQUIRE(r.responses[0].partitions.size() == 1);
  return r.responses[0].partitions[0];
}

}  // namespace skiff::test
