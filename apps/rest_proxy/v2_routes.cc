#include "apps/rest_proxy/v2_routes.h"

#include <cmath>
#include <cstdint>

#include "apps/rest_proxy/rest_errors.h"
#include "apps/rest_proxy/v2_formats.h"
#include "apps/rest_proxy/v2_handlers.h"
#include "apps/rest_proxy/v2_kafka.h"
#include "apps/rest_proxy/v3_records.h"
#include "common/json_writer.h"

namespace skiff::restproxy {
namespace {

std::optional<network::HttpResponse> route(V2Services& s, const RestCall& call) {
  const auto& path = call.path;
  const std::string& method = call.request.method;
  if (path.empty()) {
    if (method == "GET") return v2_json("{}");
    return std::nullopt;
  }
  if (path[0] == "topics" && method == "POST" && (path.size() == 2 || (path.size() == 4 && path[2] == "partitions"))) {
    return produce_v2(s, call, path[1],
                      path.size() == 4 ? std::optional<int32_t>(v2_partition_segment(path[3])) : std::nullopt);
  }
  if (path[0] == "topics" || path[0] == "brokers") return metadata_v2(s, call);
  if (path[0] == "consumers") return consumers_v2(s, call);
  return std::nullopt;
}

}  // namespace

network::HttpResponse v2_json(std::string body, int status) {
  network::HttpResponse r;
  r.status = status;
  r.content_type = kV2ContentType;
  r.body = std::move(body);
  return r;
}

network::HttpResponse v2_no_content() {
  network::HttpResponse r;
  r.status = 204;
  r.content_type = kV2ContentType;
  return r;
}

void v2_unprocessable(const std::string& why) { throw RestError(422, 422, why); }

std::optional<JsonValue> v2_body(const RestCall& call, bool required) {
  const std::string& body = call.request.body;
  if (static_cast<int64_t>(body.size()) > call.limits.max_request_bytes)
    throw RestError(413, 41301,
                    "Request body of " + std::to_string(body.size()) + " bytes exceeds the limit of " +
                        std::to_string(call.limits.max_request_bytes));
  if (body.find_first_not_of(" \t\r\n") == std::string::npos) {
    if (required) v2_unprocessable("Request body is required");
    return std::nullopt;
  }
  auto json = parse_json(body, 64);
  if (!json) throw RestError(400, 400, "Unexpected JSON: the request body does not parse as JSON");
  if (json->kind != JsonValue::Kind::kObject) v2_unprocessable("The request body must be a JSON object");
  return json;
}

std::optional<int64_t> v2_int(const JsonValue& obj, const char* name, int64_t lo, int64_t hi) {
  const JsonValue* v = obj.find(name);
  if (!v || v->kind == JsonValue::Kind::kNull) return std::nullopt;
  if (v->kind == JsonValue::Kind::kString) {
    try {
      size_t used = 0;
      const int64_t n = std::stoll(v->string, &used);
      if (used == v->string.size() && n >= lo && n <= hi) return n;
    } catch (const std::exception&) {
    }
    v2_unprocessable(std::string("'") + name + "' is not a whole number in range");
  }
  // Range first: a double past int64's range must not reach the cast.
  constexpr double kExact = 9.0e18;
  if (v->kind != JsonValue::Kind::kNumber || !(v->number >= static_cast<double>(lo)) ||
      !(v->number <= static_cast<double>(hi)) || std::fabs(v->number) >= kExact || std::trunc(v->number) != v->number)
    v2_unprocessable(std::string("'") + name + "' is not a whole number in range");
  return static_cast<int64_t>(v->number);
}

namespace {

TopicPartition topic_partition_of(const JsonValue& e) {
  const JsonValue* topic = e.find("topic");
  if (e.kind != JsonValue::Kind::kObject || !topic || topic->kind != JsonValue::Kind::kString || topic->string.empty())
    v2_unprocessable("each entry needs a 'topic'");
  auto partition = v2_int(e, "partition", 0, INT32_MAX);
  if (!partition) v2_unprocessable("each entry needs a 'partition'");
  return {topic->string, static_cast<int32_t>(*partition)};
}

const std::vector<JsonValue>& array_member(const JsonValue& body, const char* name) {
  const JsonValue* a = body.find(name);
  if (!a || a->kind != JsonValue::Kind::kArray) v2_unprocessable(std::string("'") + name + "' must be an array");
  return a->array;
}

}  // namespace

std::set<TopicPartition> v2_partitions(const JsonValue& body) {
  std::set<TopicPartition> out;
  for (const auto& e : array_member(body, "partitions")) out.insert(topic_partition_of(e));
  return out;
}

std::map<TopicPartition, int64_t> v2_offsets(const JsonValue& body) {
  std::map<TopicPartition, int64_t> out;
  for (const auto& e : array_member(body, "offsets")) {
    auto offset = v2_int(e, "offset", 0, INT64_MAX - 1);
    if (!offset) v2_unprocessable("each offset needs an 'offset'");
    out[topic_partition_of(e)] = *offset;
  }
  return out;
}

std::map<TopicPartition, int64_t> v2_timestamps(const JsonValue& body) {
  std::map<TopicPartition, int64_t> out;
  for (const auto& e : array_member(body, "timestamps")) {
    const JsonValue* ts = e.find("timestamp");
    std::optional<int64_t> ms;
    if (ts && ts->kind == JsonValue::Kind::kString) ms = parse_iso_instant(ts->string);
    if (!ms || *ms < 0) v2_unprocessable("each timestamp needs a 'timestamp' in ISO-8601 (2024-01-01T00:00:00Z)");
    out[topic_partition_of(e)] = *ms;
  }
  return out;
}

int32_t v2_partition_segment(const std::string& text) {
  int64_t n = -1;
  if (!text.empty() && text.size() <= 10 && text.find_first_not_of("0123456789") == std::string::npos)
    n = std::stoll(text);
  if (n < 0 || n > INT32_MAX) throw RestError(404, 404, "HTTP 404 Not Found");
  return static_cast<int32_t>(n);
}

std::optional<network::HttpResponse> dispatch_v2(V2Services& services, const RestCall& call) {
  try {
    return route(services, call);
  } catch (const RestError& e) {
    return error_response(e, kV2ContentType);
  } catch (const client::ClientError& e) {
    const V2Error v = e.error_code > 0 ? v2_error_of(static_cast<int16_t>(e.error_code), std::string(e.what()))
                                       : V2Error{500, 50002, std::string("Kafka error: ") + e.what()};
    return error_response(RestError(v.status, v.error_code, v.message), kV2ContentType);
  }
}

}  // namespace skiff::restproxy
