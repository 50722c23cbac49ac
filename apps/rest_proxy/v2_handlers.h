// What the v2 route files share (v2_routes.cc dispatches to them): reading
// request bodies and answering in v2's content type. Confluent's answers to
// bad bodies: 400 / 400 for JSON that does not parse, 413 / 41301 for a
// body past the limit, 422 / 422 for JSON of the wrong shape.
// Threads: pure functions over the call.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "apps/rest_proxy/consumer_positions.h"
#include "apps/rest_proxy/v2_routes.h"
#include "common/json.h"

namespace skiff::restproxy {

network::HttpResponse v2_json(std::string body, int status = 200);
network::HttpResponse v2_no_content();
[[noreturn]] void v2_unprocessable(const std::string& why);

// The body as JSON; an empty body is nullopt unless `required`.
std::optional<JsonValue> v2_body(const RestCall& call, bool required);
// A member that must be a whole number in [lo, hi] (absent: nullopt).
std::optional<int64_t> v2_int(const JsonValue& obj, const char* name, int64_t lo, int64_t hi);
// {"partitions": [{"topic", "partition"}]}
std::set<TopicPartition> v2_partitions(const JsonValue& body);
// {"offsets": [{"topic", "partition", "offset"}]}
std::map<TopicPartition, int64_t> v2_offsets(const JsonValue& body);
// The "timestamps" of a seek body (ISO-8601 instants) in epoch ms.
std::map<TopicPartition, int64_t> v2_timestamps(const JsonValue& body);
// A path segment that must be a partition number.
int32_t v2_partition_segment(const std::string& text);

network::HttpResponse produce_v2(V2Services& s, const RestCall& call, const std::string& topic,
                                 std::optional<int32_t> partition);
std::optional<network::HttpResponse> metadata_v2(V2Services& s, const RestCall& call);
std::optional<network::HttpResponse> consumers_v2(V2Services& s, const RestCall& call);

}  // namespace skiff::restproxy
