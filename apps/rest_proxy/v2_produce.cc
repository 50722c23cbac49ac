// POST /topics/{t} and /topics/{t}/partitions/{p}: v2 produce (Confluent's
// ProduceToTopicAction / ProduceToPartitionAction). The records of one
// request go out as one Produce (acks=all), one batch per partition; each
// record's partition: its own "partition", else the path's, else the
// murmur2 of its key (Kafka's default partitioner), else one partition for
// all the null-key records of the request (sticky, moving on per request).
// Schema formats: key_schema / value_schema (registered under
// "<topic>-key" / "<topic>-value") or key_schema_id / value_schema_id.
#include <atomic>
#include <chrono>

#include "apps/rest_proxy/rest_errors.h"
#include "apps/rest_proxy/v2_formats.h"
#include "apps/rest_proxy/v2_handlers.h"
#include "apps/rest_proxy/v2_kafka.h"
#include "common/json_writer.h"
#include "common/kafka_hash.h"

namespace skiff::restproxy {
namespace {

struct Outgoing {
  int32_t partition = 0;
  client::ProducerRecord record;
};

std::optional<SchemaHandle> schema_of(V2Services& s, EmbeddedFormat f, const std::string& topic, const JsonValue& body,
                                      bool key) {
  const char* id_name = key ? "key_schema_id" : "value_schema_id";
  const char* text_name = key ? "key_schema" : "value_schema";
  const auto id = v2_int(body, id_name, 0, INT32_MAX);
  const JsonValue* text = body.find(text_name);
  const bool has_text = text && text->kind != JsonValue::Kind::kNull;
  if (!needs_schema(f) || (!id && !has_text)) return std::nullopt;
  if (!s.formats) throw RestError(422, 42207, "Error serializing message. Schema Registry is not configured");
  if (id) return s.formats->by_id(static_cast<int32_t>(*id));
  if (text->kind != JsonValue::Kind::kString) v2_unprocessable(std::string("'") + text_name + "' must be a string");
  return s.formats->register_schema(topic + (key ? "-key" : "-value"), schema_type_of(f), text->string);
}

int32_t choose_partition(const JsonValue& rec, std::optional<int32_t> path_partition, const client::ProducerRecord& r,
                         int32_t count, int32_t sticky) {
  if (auto p = v2_int(rec, "partition", 0, INT32_MAX)) {
    if (*p >= count) throw RestError(404, 40402, "Partition not found.");
    return static_cast<int32_t>(*p);
  }
  if (path_partition) return *path_partition;
  if (r.key) return kafka_key_partition(*r.key, count);
  return sticky;
}

std::vector<Outgoing> encode_records(V2Services& s, EmbeddedFormat f, const std::string& topic, const JsonValue& body,
                                     std::optional<int32_t> path_partition, int32_t count,
                                     std::optional<SchemaHandle>& key_schema, std::optional<SchemaHandle>& value_schema,
                                     int max_records) {
  const JsonValue* records = body.find("records");
  if (!records || records->kind != JsonValue::Kind::kArray) v2_unprocessable("'records' must be an array");
  if (static_cast<int>(records->array.size()) > max_records)
    v2_unprocessable("at most " + std::to_string(max_records) + " records per request");
  key_schema = schema_of(s, f, topic, body, true);
  value_schema = schema_of(s, f, topic, body, false);
  static std::atomic<uint32_t> next_sticky{0};
  const auto sticky = static_cast<int32_t>(next_sticky.fetch_add(1) % static_cast<uint32_t>(count));
  const int64_t now =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  static const JsonValue kNull;
  std::vector<Outgoing> out;
  for (const auto& rec : records->array) {
    if (rec.kind != JsonValue::Kind::kObject) v2_unprocessable("each record must be a JSON object");
    const JsonValue* key = rec.find("key");
    const JsonValue* value = rec.find("value");
    if (!key) key = &kNull;
    if (!value) value = &kNull;
    if (needs_schema(f) && key->kind != JsonValue::Kind::kNull && !key_schema)
      throw RestError(422, 42201, "Request includes keys but does not include key schema");
    if (needs_schema(f) && value->kind != JsonValue::Kind::kNull && !value_schema)
      throw RestError(422, 42202, "Request includes values but does not include value schema");
    Outgoing o;
    o.record.key = encode_embedded(f, *key, key_schema ? &*key_schema : nullptr);
    o.record.value = encode_embedded(f, *value, value_schema ? &*value_schema : nullptr);
    o.record.timestamp = now;
    o.partition = choose_partition(rec, path_partition, o.record, count, sticky);
    out.push_back(std::move(o));
  }
  return out;
}

void write_schema_id(JsonWriter& w, const char* name, const std::optional<SchemaHandle>& h) {
  w.key(name);
  if (h) {
    w.value(h->id);
  } else {
    w.null();
  }
}

}  // namespace

network::HttpResponse produce_v2(V2Services& s, const RestCall& call, const std::string& topic,
                                 std::optional<int32_t> partition) {
  const auto format = format_of_content_type(call.request.content_type);
  if (!format) throw RestError(415, 415, "HTTP 415 Unsupported Media Type");
  const JsonValue body = *v2_body(call, true);
  auto kafka = s.kafka.client(call.principal);
  const int32_t count = partition_count(kafka, topic);
  if (partition && *partition >= count) throw RestError(404, 40402, "Partition not found.");
  std::optional<SchemaHandle> key_schema, value_schema;
  auto records = encode_records(s, *format, topic, body, partition, count, key_schema, value_schema,
                                call.limits.max_records_per_response);

  std::map<int32_t, std::vector<client::ProducerRecord>> batches;
  std::vector<std::pair<int32_t, size_t>> where;  // per record: partition, index in its batch
  for (auto& o : records) {
    auto& batch = batches[o.partition];
    where.emplace_back(o.partition, batch.size());
    batch.push_back(std::move(o.record));
  }
  const auto results = batches.empty() ? std::map<int32_t, ProduceResult>{} : produce(kafka, topic, batches);

  JsonWriter w;
  w.begin_object().key("offsets").begin_array();
  for (const auto& [p, index] : where) {
    auto it = results.find(p);
    w.begin_object();
    if (it != results.end() && it->second.error_code == 0) {
      w.field("partition", p).field("offset", it->second.base_offset + static_cast<int64_t>(index));
      w.key("error_code").null().key("error").null();
    } else {
      const V2Error e = it == results.end() ? V2Error{500, 50002, "Kafka error: no answer for the partition"}
                                            : v2_error_of(it->second.error_code, it->second.error_message);
      w.key("partition").null().key("offset").null();
      w.field("error_code", static_cast<int64_t>(e.error_code)).field("error", e.message);
    }
    w.end_object();
  }
  w.end_array();
  write_schema_id(w, "key_schema_id", key_schema);
  write_schema_id(w, "value_schema_id", value_schema);
  w.end_object();
  return v2_json(w.take());
}

}  // namespace skiff::restproxy
