// What the endpoint files share: argument reading and the two lookups every
// view needs (the topics and their partitions' offsets).
#include "apps/console/console_endpoints.h"
#include "client/records.h"
#include "protocol/generated/list_offsets_request.h"
#include "protocol/generated/list_offsets_response.h"
#include "protocol/generated/metadata_request.h"
#include "protocol/generated/metadata_response.h"

namespace skiff::console {
namespace {

std::optional<int64_t> parse_int(const std::string& text) {
  if (text.empty()) return std::nullopt;
  size_t used = 0;
  try {
    const int64_t v = std::stoll(text, &used);
    if (used == text.size()) return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

}  // namespace

void bad_request(const std::string& message) { throw client::ClientError(400, "BAD_REQUEST", -1, message); }
void not_found(const std::string& message) { throw client::ClientError(404, "NOT_FOUND", -1, message); }

std::optional<std::string> ConsoleCall::query(const std::string& name) const {
  auto it = http.query.find(name);
  if (it == http.query.end()) return std::nullopt;
  return it->second;
}

std::string ConsoleCall::required_query(const std::string& name) const {
  auto v = query(name);
  if (!v || v->empty()) bad_request("missing query parameter '" + name + "'");
  return *v;
}

std::string ConsoleCall::required_string(const std::string& name) const {
  const JsonValue* v = body.find(name);
  if (!v || v->kind != JsonValue::Kind::kString || v->string.empty()) bad_request("missing string '" + name + "'");
  return v->string;
}

int64_t ConsoleCall::query_int(const std::string& name, int64_t fallback) const {
  auto v = query(name);
  if (!v || v->empty()) return fallback;
  auto n = parse_int(*v);
  if (!n) bad_request("'" + name + "' is not an integer");
  return *n;
}

int64_t ConsoleCall::body_int(const std::string& name, int64_t fallback) const {
  const JsonValue* v = body.find(name);
  if (!v || v->kind == JsonValue::Kind::kNull) return fallback;
  if (v->kind != JsonValue::Kind::kNumber || v->number != static_cast<double>(static_cast<int64_t>(v->number)))
    bad_request("'" + name + "' is not an integer");
  return static_cast<int64_t>(v->number);
}

std::map<std::string, int32_t> topic_partitions(client::InProcessClient& kafka, const std::vector<std::string>* only) {
  const auto req = client::metadata_request(only);
  auto resp = kafka.call<protocol::MetadataResponse>(req, 12);
  std::map<std::string, int32_t> out;
  for (const auto& t : resp.topics) {
    if (only) client::throw_if_kafka_error(t.error_code, t.name ? "topic " + *t.name : std::optional<std::string>());
    if (t.error_code == 0 && t.name) out[*t.name] = static_cast<int32_t>(t.partitions.size());
  }
  return out;
}

std::map<std::pair<std::string, int32_t>, int64_t> list_offsets(
    client::InProcessClient& kafka, const std::map<std::string, std::vector<int32_t>>& partitions, int64_t timestamp,
    bool read_committed) {
  protocol::ListOffsetsRequest req;
  req.replica_id = -1;
  req.isolation_level = read_committed ? 1 : 0;
  for (const auto& [topic, indexes] : partitions) {
    auto& t = req.topics.emplace_back();
    t.name = topic;
    for (int32_t p : indexes) {
      auto& lp = t.partitions.emplace_back();
      lp.partition_index = p;
      lp.timestamp = timestamp;
    }
  }
  std::map<std::pair<std::string, int32_t>, int64_t> out;
  if (req.topics.empty()) return out;
  // The first version that knows the timestamp: -4 v8, -5 v9, -6 v11 (else 7).
  const int16_t version = timestamp == -6 ? 11 : timestamp == -5 ? 9 : timestamp == -4 ? 8 : 7;
  auto resp = kafka.call<protocol::ListOffsetsResponse>(req, version);
  for (const auto& t : resp.topics)
    for (const auto& p : t.partitions) out[{t.name, p.partition_index}] = p.error_code == 0 ? p.offset : -1;
  return out;
}

}  // namespace skiff::console
