#include "apps/rest_proxy/v3_records.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <ctime>
#include <map>

#include "apps/rest_proxy/json_stream.h"
#include "apps/rest_proxy/rest_errors.h"
#include "apps/rest_proxy/rest_kafka_errors.h"
#include "apps/rest_proxy/v3_api.h"
#include "apps/rest_proxy/v3_json.h"
#include "client/records.h"
#include "common/base64.h"
#include "common/json_writer.h"
#include "common/kafka_hash.h"
#include "protocol/generated/metadata_request.h"
#include "protocol/generated/metadata_response.h"
#include "protocol/generated/produce_request.h"
#include "protocol/generated/produce_response.h"

namespace skiff::restproxy {
namespace {

constexpr size_t kGroupRecords = 1000;               // records produced together, at most
constexpr size_t kGroupBytes = size_t{1024} * 1024;  // ... and their bytes

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
  return s;
}

// One key or value as produced.
struct Data {
  bool present = false;
  std::optional<std::string> bytes;
  std::string type;
  int32_t schema_id = -1;
  std::string subject;
};

// One record of a group, from its JSON to its result.
struct Pending {
  std::optional<RestError> error;
  int32_t partition = -1;
  int64_t timestamp = 0;
  Data key, value;
  std::vector<uint8_t> batch;
  int64_t offset = -1;
};

std::string framed(int32_t id, const std::string& payload) {
  std::string out(5, '\0');
  for (int i = 0; i < 4; ++i) out[1 + i] = static_cast<char>((static_cast<uint32_t>(id) >> (24 - 8 * i)) & 0xff);
  return out + payload;
}

const char* const kSchemaTypes[] = {"AVRO", "PROTOBUF", "JSONSCHEMA"};

// By schema_id, else an inline schema registered under `subject`, else
// `subject`'s given (schema_version) or latest version.
SchemaHandle find_schema(const JsonValue& field, const std::string& type, const std::string& subject,
                         EmbeddedFormats& formats) {
  const JsonValue* id = field.find("schema_id");
  const JsonValue* schema = field.find("schema");
  const JsonValue* version = field.find("schema_version");
  if (id && id->kind == JsonValue::Kind::kNumber) return formats.by_id(static_cast<int32_t>(id->number));
  if (schema && schema->kind == JsonValue::Kind::kString) {
    const auto st = type == "PROTOBUF"     ? schema::SchemaType::kProtobuf
                    : type == "JSONSCHEMA" ? schema::SchemaType::kJson
                                           : schema::SchemaType::kAvro;
    return formats.register_schema(subject, st, schema->string);
  }
  return formats.by_subject(
      subject, version && version->kind == JsonValue::Kind::kNumber ? static_cast<int>(version->number) : -1);
}

Data schema_data(const JsonValue& field, const std::string& type, const JsonValue* data, const std::string& topic,
                 bool is_key, EmbeddedFormats* formats) {
  if (!formats)
    throw RestError(400, 400, "Schema Registry is not configured: " + (type.empty() ? "a schema" : type) + " needs it");
  Data d{true, std::nullopt, type, -1, ""};
  const JsonValue* subject = field.find("subject");
  d.subject =
      subject && subject->kind == JsonValue::Kind::kString ? subject->string : topic + (is_key ? "-key" : "-value");
  SchemaHandle h = find_schema(field, type, d.subject, *formats);
  if (!h.schema) throw RestError(404, 40403, "Schema not found for " + d.subject);
  d.schema_id = h.id;
  if (d.type.empty()) {  // no type given: the registered schema's
    const auto t = h.schema->type();
    d.type = t == schema::SchemaType::kAvro ? "AVRO" : t == schema::SchemaType::kProtobuf ? "PROTOBUF" : "JSONSCHEMA";
  }
  if (!data || data->kind == JsonValue::Kind::kNull) return d;
  auto encoded = h.schema->encode(*data);
  if (!encoded) throw RestError(400, 42207, "Error serializing message. " + encoded.error());
  d.bytes = framed(h.id, *encoded);
  return d;
}

Data plain_data(const std::string& type, const JsonValue* data);

Data encode_data(const JsonValue* field, const std::string& topic, bool is_key, EmbeddedFormats* formats) {
  if (!field || field->kind == JsonValue::Kind::kNull) return {};
  if (field->kind != JsonValue::Kind::kObject)
    throw RestError(400, 400, std::string(is_key ? "key" : "value") + " must be an object with type and data");
  const JsonValue* type_field = field->find("type");
  std::string type = type_field && type_field->kind == JsonValue::Kind::kString ? upper(type_field->string) : "";
  const JsonValue* data = field->find("data");
  if (type.empty() && (field->find("schema_id") || field->find("subject")))
    return schema_data(*field, "", data, topic, is_key, formats);  // the type of the schema found
  if (type.empty()) type = field->find("schema") ? "AVRO" : "JSON";
  for (const char* t : kSchemaTypes)
    if (type == t) return schema_data(*field, type, data, topic, is_key, formats);
  return plain_data(type, data);
}

// BINARY, STRING or JSON data as bytes.
Data plain_data(const std::string& type, const JsonValue* data) {
  Data d{true, std::nullopt, type, -1, ""};
  if (!data || data->kind == JsonValue::Kind::kNull) return d;
  if (type == "BINARY") {
    if (data->kind != JsonValue::Kind::kString) throw RestError(400, 400, "BINARY data must be a base64 string");
    auto bytes = base64_decode(data->string);
    if (!bytes) throw RestError(400, 400, "BINARY data is not valid base64");
    d.bytes = std::move(*bytes);
  } else if (type == "STRING") {
    if (data->kind != JsonValue::Kind::kString) throw RestError(400, 400, "STRING data must be a string");
    d.bytes = data->string;
  } else if (type == "JSON") {
    d.bytes = compact_json(*data);
  } else {
    throw RestError(400, 400, "Unknown type " + type + " (BINARY, JSON, STRING, AVRO, PROTOBUF, JSONSCHEMA)");
  }
  return d;
}

std::vector<std::pair<std::string, std::optional<std::string>>> headers_of(const JsonValue* list) {
  std::vector<std::pair<std::string, std::optional<std::string>>> out;
  if (!list || list->kind == JsonValue::Kind::kNull) return out;
  if (list->kind != JsonValue::Kind::kArray) throw RestError(400, 400, "headers must be a list");
  for (const auto& h : list->array) {
    const JsonValue* name = h.find("name");
    const JsonValue* value = h.find("value");
    if (!name || name->kind != JsonValue::Kind::kString) throw RestError(400, 400, "a header needs a name");
    std::optional<std::string> v;
    if (value && value->kind == JsonValue::Kind::kString) {
      v = base64_decode(value->string);
      if (!v) throw RestError(400, 400, "header " + name->string + ": value is not valid base64");
    }
    out.emplace_back(name->string, std::move(v));
  }
  return out;
}

int64_t timestamp_of(const JsonValue* t) {
  if (!t || t->kind == JsonValue::Kind::kNull)
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
  if (t->kind == JsonValue::Kind::kNumber) return static_cast<int64_t>(t->number);
  if (t->kind == JsonValue::Kind::kString)
    if (auto ms = parse_iso_instant(t->string)) return *ms;
  throw RestError(400, 400, "timestamp must be an ISO-8601 instant or epoch milliseconds");
}

void write_data(JsonWriter& w, const char* name, const Data& d) {
  if (!d.present) return;
  w.key(name).begin_object().field("type", d.type);
  if (d.schema_id >= 0) w.field("subject", d.subject).field("schema_id", d.schema_id);
  w.field("size", static_cast<int64_t>(d.bytes ? d.bytes->size() : 0)).end_object();
}

class RecordStream {
 public:
  RecordStream(V3Call& c, int32_t partitions)
      : c_(c),
        topic_(c.params[1]),
        partitions_(partitions),
        objects_(static_cast<size_t>(c.call.limits.max_request_bytes)) {
    static std::atomic<uint32_t> start{0};
    round_robin_ = start.fetch_add(1);
  }

  std::optional<network::HttpResponse> run();

 private:
  Pending prepare(const std::string& text);
  void produce(std::vector<Pending>& group);
  void emit(const std::string& json);
  void emit_error(const RestError& e);
  bool flush(std::vector<Pending>& group, size_t& bytes);

  V3Call& c_;
  const std::string topic_;
  const int32_t partitions_;
  JsonObjectStream objects_;
  uint32_t round_robin_;
  bool started_ = false, seen_ = false, gone_ = false;
};

Pending RecordStream::prepare(const std::string& text) {
  Pending p;
  try {
    auto v = parse_json(text, 64);
    if (!v || v->kind != JsonValue::Kind::kObject)
      throw RestError(400, 400, "Error processing JSON: not a JSON object");
    if (const JsonValue* pid = v->find("partition_id"); pid && pid->kind != JsonValue::Kind::kNull) {
      if (pid->kind != JsonValue::Kind::kNumber || pid->number < 0 || pid->number >= partitions_ ||
          pid->number != static_cast<double>(static_cast<int32_t>(pid->number)))
        throw RestError(404, 40402, "Partition not found.");
      p.partition = static_cast<int32_t>(pid->number);
    }
    client::ProducerRecord record;
    record.headers = headers_of(v->find("headers"));
    p.key = encode_data(v->find("key"), topic_, true, c_.formats);
    p.value = encode_data(v->find("value"), topic_, false, c_.formats);
    p.timestamp = record.timestamp = timestamp_of(v->find("timestamp"));
    if (p.partition < 0)
      p.partition = p.key.bytes ? kafka_key_partition(*p.key.bytes, partitions_)
                                : static_cast<int32_t>(round_robin_++ % static_cast<uint32_t>(partitions_));
    record.key = p.key.bytes;
    record.value = p.value.bytes;
    p.batch = client::encode_record_batch(std::move(record));
  } catch (const RestError& e) {
    p.error = e;
  }
  return p;
}

// One Produce request for the group's good records: per partition, their
// one-record batches one after another, so the i-th has base offset + i.
void RestStreamProduce(V3Call& c, const std::string& topic, std::vector<Pending>& group) {
  std::map<int32_t, std::vector<uint8_t>> blobs;
  for (const auto& p : group)
    if (!p.error) blobs[p.partition].insert(blobs[p.partition].end(), p.batch.begin(), p.batch.end());
  if (blobs.empty()) return;
  protocol::ProduceRequest req;
  req.acks = -1;
  req.timeout_ms = 30000;
  auto& t = req.topic_data.emplace_back();
  t.name = topic;
  for (const auto& [partition, blob] : blobs) {
    auto& pd = t.partition_data.emplace_back();
    pd.index = partition;
    pd.records = protocol::Records::bytes(blob);
  }
  auto kafka = c.rest_kafka.client(c.call.principal);  // one per group: its answers are not kept past it
  std::map<int32_t, std::pair<int64_t, std::optional<RestError>>> results;
  try {
    for (const auto& tr : kafka.call<protocol::ProduceResponse>(req, 9).responses)
      for (const auto& pr : tr.partition_responses)
        results[pr.index] = {
            pr.base_offset,
            pr.error_code ? std::optional<RestError>(kafka_rest_error(pr.error_code, pr.error_message)) : std::nullopt};
  } catch (const client::ClientError& e) {
    for (const auto& [partition, blob] : blobs)
      results[partition] = {-1, e.error_code > 0 ? kafka_rest_error(static_cast<int16_t>(e.error_code), e.what())
                                                 : RestError(500, 50002, e.what())};
  }
  std::map<int32_t, int64_t> next;
  for (auto& p : group) {
    if (p.error) continue;
    auto it = results.find(p.partition);
    if (it == results.end()) {
      p.error = RestError(500, 50002, "the broker did not answer for partition " + std::to_string(p.partition));
    } else if (it->second.second) {
      p.error = it->second.second;
    } else {
      p.offset = it->second.first + next[p.partition]++;
    }
  }
}

void RecordStream::emit(const std::string& json) {
  if (gone_) return;
  if (!started_) {
    started_ = true;
    if (!c_.exchange.begin(200, "application/json")) gone_ = true;
  }
  if (!gone_ && !c_.exchange.write(json + "\r\n")) gone_ = true;
}

void RecordStream::emit_error(const RestError& e) {
  JsonWriter w;
  w.begin_object().field("error_code", static_cast<int64_t>(e.error_code)).field("message", std::string(e.what()));
  emit(w.end_object().take());
}

bool RecordStream::flush(std::vector<Pending>& group, size_t& bytes) {
  if (group.empty()) return !gone_;
  RestStreamProduce(c_, topic_, group);
  for (const auto& p : group) {
    if (p.error) {
      emit_error(*p.error);
      continue;
    }
    JsonWriter w;
    w.begin_object().field("error_code", int64_t{200}).field("cluster_id", c_.cluster_id);
    w.field("topic_name", topic_).field("partition_id", p.partition).field("offset", p.offset);
    w.field("timestamp", iso_instant(p.timestamp));
    write_data(w, "key", p.key);
    write_data(w, "value", p.value);
    emit(w.end_object().take());
  }
  group.clear();
  bytes = 0;
  return !gone_;
}

std::optional<network::HttpResponse> RecordStream::run() {
  std::vector<Pending> group;
  size_t bytes = 0;
  std::string piece, object;
  for (;;) {
    const auto got = c_.exchange.read(piece);
    if (got == network::HttpExchangeChannel::Read::kClosed) return std::nullopt;
    if (got == network::HttpExchangeChannel::Read::kData) objects_.feed(piece);
    JsonObjectStream::Next next;
    while ((next = objects_.next(object)) == JsonObjectStream::Next::kObject) {
      seen_ = true;
      group.push_back(prepare(object));
      bytes += group.back().batch.size();
      if ((group.size() >= kGroupRecords || bytes >= kGroupBytes) && !flush(group, bytes)) return std::nullopt;
    }
    if (next != JsonObjectStream::Next::kMore ||
        (got == network::HttpExchangeChannel::Read::kEnd && objects_.pending())) {
      if (!flush(group, bytes)) return std::nullopt;
      const RestError e = next == JsonObjectStream::Next::kTooLarge
                              ? RestError(413, 413, "A record is larger than rest.proxy.max.request.bytes")
                              : RestError(400, 400, "Error processing JSON: expected a JSON object");
      if (!started_) throw e;
      emit_error(e);
      break;
    }
    if (!flush(group, bytes)) return std::nullopt;  // what arrived so far is answered before waiting for more
    if (got == network::HttpExchangeChannel::Read::kEnd) break;
  }
  if (!seen_) throw RestError(422, 42206, "Payload error. Request body is empty. Data is required.");
  if (started_ && !gone_) c_.exchange.end();
  return std::nullopt;
}

int32_t partition_count(V3Call& c) {
  const std::vector<std::string> named{c.params[1]};
  const auto req = client::metadata_request(&named);
  for (const auto& t : c.kafka.call<protocol::MetadataResponse>(req, 12).topics) {
    if (t.error_code == 3) break;
    throw_kafka_error(t.error_code);
    if (!t.partitions.empty()) return static_cast<int32_t>(t.partitions.size());
  }
  throw RestError(404, 40401, "Topic not found.");
}

std::optional<network::HttpResponse> produce_records(V3Call& c) {
  RecordStream stream(c, partition_count(c));
  return stream.run();
}

}  // namespace

std::string iso_instant(int64_t epoch_ms) {
  const std::time_t secs = static_cast<std::time_t>(epoch_ms >= 0 ? epoch_ms / 1000 : (epoch_ms - 999) / 1000);
  const int64_t ms = epoch_ms - static_cast<int64_t>(secs) * 1000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  std::string out = fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                                tm.tm_hour, tm.tm_min, tm.tm_sec);
  if (ms) out += fmt::format(".{:03}", ms);
  return out + "Z";
}

std::optional<int64_t> parse_iso_instant(std::string_view s) {
  std::tm tm{};
  int consumed = 0;
  const std::string text(s);
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                  &tm.tm_min, &tm.tm_sec, &consumed) != 6 ||
      consumed != 19)
    return std::nullopt;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  int64_t ms = static_cast<int64_t>(timegm(&tm)) * 1000;
  size_t i = 19;
  if (i < text.size() && text[i] == '.') {
    int64_t scale = 100;
    for (++i; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i, scale /= 10)
      ms += (text[i] - '0') * scale;
  }
  if (i < text.size() && (text[i] == 'Z' || text[i] == 'z'))
    return i + 1 == text.size() ? std::optional(ms) : std::nullopt;
  if (i + 6 == text.size() && (text[i] == '+' || text[i] == '-') && text[i + 3] == ':') {
    int hh = 0, mm = 0;
    if (std::sscanf(text.c_str() + i + 1, "%2d:%2d", &hh, &mm) != 2) return std::nullopt;
    const int64_t offset = (hh * 60 + mm) * 60000LL;
    return text[i] == '+' ? ms - offset : ms + offset;
  }
  return std::nullopt;
}

void add_record_routes(std::vector<V3Api::Route>& r) {
  r.push_back({"POST", {"v3", "clusters", "{}", "topics", "{}", "records"}, "v3.records.produce", produce_records});
}

}  // namespace skiff::restproxy
