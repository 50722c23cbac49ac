// GET /api/messages (browse) and POST /api/messages/produce
// (docs/console-api.md). Browsing fetches read_committed with no wait, as
// a consumer would; produce sends one record with acks=all.
#include <algorithm>
#include <atomic>
#include <set>

#include "apps/console/console_endpoints.h"
#include "apps/console/console_schemas.h"
#include "client/records.h"
#include "common/base64.h"
#include "common/kafka_hash.h"
#include "protocol/generated/fetch_request.h"
#include "protocol/generated/fetch_response.h"
#include "protocol/generated/produce_request.h"
#include "protocol/generated/produce_response.h"

namespace skiff::console {
namespace {

constexpr int64_t kMaxScanned = 10000;
constexpr int32_t kFetchBytes = 1 << 20;

using Message = client::Record;

// One read_committed fetch of `partition` from `offset`, no waiting.
protocol::FetchResponse fetch(client::InProcessClient& kafka, const std::string& topic, int32_t partition,
                              int64_t offset) {
  protocol::FetchRequest req;
  req.replica_id = -1;
  req.max_wait_ms = 0;
  req.min_bytes = 0;
  req.max_bytes = kFetchBytes;
  req.isolation_level = 1;
  auto& t = req.topics.emplace_back();
  t.topic = topic;
  auto& p = t.partitions.emplace_back();
  p.partition = partition;
  p.fetch_offset = offset;
  p.partition_max_bytes = kFetchBytes;
  return kafka.call<protocol::FetchResponse>(req, 12);
}

struct Range {
  int64_t start = 0, end = 0;  // [start, end): what the partition holds
};

// Reads [from, to) of one partition; calls keep(m) for each record until it
// returns false or `budget` records have been looked at.
template <class Keep>
void read_range(client::InProcessClient& kafka, const std::string& topic, int32_t partition, int64_t from, int64_t to,
                int64_t& budget, Keep&& keep) {
  bool more = true;
  while (more && from < to && budget > 0) {
    auto resp = fetch(kafka, topic, partition, from);
    if (resp.responses.empty() || resp.responses[0].partitions.empty()) return;
    const auto& data = resp.responses[0].partitions[0];
    client::throw_if_kafka_error(data.error_code, "partition " + std::to_string(partition));
    client::PartitionRecords reader(partition, data);
    reader.for_each(from, [&](Message m) {
      if (!more || m.offset >= to || budget <= 0) return;
      --budget;
      more = keep(std::move(m));
    });
    if (reader.next_offset() <= from) return;  // nothing further to read
    from = reader.next_offset();
  }
}

struct Browse {
  std::string topic;
  bool newest = true;
  size_t limit = 50;
  std::optional<int64_t> offset, timestamp;
  std::optional<std::string> key;
  int64_t budget = kMaxScanned;
};

bool matches(const Browse& b, const Message& m) { return !b.key || m.key == b.key; }

// The `limit` newest matching records at or before the start point, newest first.
std::vector<Message> newest(client::InProcessClient& kafka, Browse& b, int32_t partition, Range range) {
  int64_t end = b.offset ? std::min(range.end, *b.offset + 1) : range.end;
  std::vector<Message> out;
  int64_t window = static_cast<int64_t>(b.key ? 500 : b.limit);
  while (end > range.start && out.size() < b.limit && b.budget > 0) {
    const int64_t from = std::max(range.start, end - window);
    std::vector<Message> chunk;
    read_range(kafka, b.topic, partition, from, end, b.budget, [&](Message m) {
      if (matches(b, m)) chunk.push_back(std::move(m));
      return true;
    });
    for (auto it = chunk.rbegin(); it != chunk.rend() && out.size() < b.limit; ++it) out.push_back(std::move(*it));
    end = from;
    window *= 2;
  }
  return out;
}

std::vector<Message> oldest(client::InProcessClient& kafka, Browse& b, int32_t partition, Range range, int64_t from) {
  std::vector<Message> out;
  read_range(kafka, b.topic, partition, std::max(from, range.start), range.end, b.budget, [&](Message m) {
    if (matches(b, m)) out.push_back(std::move(m));
    return out.size() < b.limit;
  });
  return out;
}

void write_bytes(JsonWriter& w, const char* name, const std::optional<std::string>& bytes) {
  w.key(name);
  if (bytes)
    w.value(base64_encode(*bytes));
  else
    w.null();
}

// A key or value framed with a Schema Registry id, decoded (console_schemas.h):
// `name` {"id", "type", "type_name"?, "json" | "error"}; nothing when the
// bytes are not framed with a known id.
void write_decoded(JsonWriter& w, const char* name, const SchemaCatalog* catalog,
                   const std::optional<std::string>& bytes) {
  if (catalog == nullptr || !bytes) return;
  const auto decoded = catalog->decode(*bytes);
  if (!decoded) return;
  w.key(name).begin_object().field("id", decoded->id).field("type", decoded->type);
  if (!decoded->type_name.empty()) w.field("type_name", decoded->type_name);
  if (decoded->json) {
    w.key("json").raw(*decoded->json);
  } else {
    w.field("error", decoded->error);
  }
  w.end_object();
}

std::string write_messages(std::vector<Message>& all, const Browse& b, const SchemaCatalog* catalog) {
  std::stable_sort(all.begin(), all.end(), [&](const Message& x, const Message& y) {
    if (x.timestamp != y.timestamp) return b.newest ? x.timestamp > y.timestamp : x.timestamp < y.timestamp;
    return b.newest ? x.offset > y.offset : x.offset < y.offset;
  });
  if (all.size() > b.limit) all.resize(b.limit);
  JsonWriter w;
  w.begin_object().key("messages").begin_array();
  for (const auto& m : all) {
    w.begin_object().field("partition", m.partition).field("offset", m.offset).field("timestamp", m.timestamp);
    w.field("timestamp_type", m.log_append_time ? "LogAppendTime" : "CreateTime");
    write_bytes(w, "key_b64", m.key);
    write_bytes(w, "value_b64", m.value);
    write_decoded(w, "key_schema", catalog, m.key);
    write_decoded(w, "value_schema", catalog, m.value);
    w.key("headers").begin_array();
    for (const auto& [k, v] : m.headers) {
      w.begin_object().field("key", k);
      write_bytes(w, "value_b64", v);
      w.end_object();
    }
    w.end_array().end_object();
  }
  w.end_array().field("scanned", kMaxScanned - b.budget);
  return w.end_object().take();
}

}  // namespace

std::string browse_messages(ConsoleCall& call) {
  Browse b;
  b.topic = call.required_query("topic");
  const auto order = call.query("order").value_or("newest");
  if (order != "newest" && order != "oldest") bad_request("order is newest or oldest");
  b.newest = order == "newest";
  const int64_t limit = call.query_int("limit", 50);
  if (limit < 1 || limit > 500) bad_request("limit is 1 to 500");
  b.limit = static_cast<size_t>(limit);
  if (call.query("offset") && !call.query("offset")->empty()) b.offset = call.query_int("offset", 0);
  if (call.query("timestamp") && !call.query("timestamp")->empty()) b.timestamp = call.query_int("timestamp", 0);
  if (auto key = call.query("key"); key && !key->empty()) b.key = *key;

  const std::vector<std::string> only{b.topic};
  const auto counts = topic_partitions(call.kafka, &only);
  std::map<std::string, std::vector<int32_t>> parts;
  const int64_t one = call.query_int("partition", -1);
  for (int32_t p = 0; p < counts.at(b.topic); ++p)
    if (one < 0 || p == one) parts[b.topic].push_back(p);
  if (parts.empty()) not_found("no partition " + std::to_string(one) + " in " + b.topic);
  const auto starts = list_offsets(call.kafka, parts, -2);
  const auto ends = list_offsets(call.kafka, parts, -1);
  std::map<std::pair<std::string, int32_t>, int64_t> at_time;
  if (b.timestamp) at_time = list_offsets(call.kafka, parts, *b.timestamp);

  std::vector<Message> all;
  for (int32_t p : parts[b.topic]) {
    const std::pair<std::string, int32_t> key{b.topic, p};
    const Range range{starts.at(key), ends.at(key)};
    std::vector<Message> got;
    if (b.newest) {
      got = newest(call.kafka, b, p, range);
    } else {
      int64_t from = b.offset.value_or(range.start);
      if (b.timestamp) from = at_time.at(key) < 0 ? range.end : at_time.at(key);
      got = oldest(call.kafka, b, p, range, from);
    }
    std::move(got.begin(), got.end(), std::back_inserter(all));
  }
  return write_messages(all, b, call.broker.schemas);
}

std::string produce_message(ConsoleCall& call) {
  const std::string topic = call.required_string("topic");
  auto optional_text = [&](const char* name) -> std::optional<std::string> {
    const JsonValue* v = call.body.find(name);
    if (!v || v->kind == JsonValue::Kind::kNull) return std::nullopt;
    if (v->kind != JsonValue::Kind::kString) bad_request(std::string("'") + name + "' is not text");
    return v->string;
  };
  client::ProducerRecord record;
  record.key = optional_text("key");
  record.value = optional_text("value");
  record.timestamp =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  if (const JsonValue* headers = call.body.find("headers"); headers && headers->kind == JsonValue::Kind::kArray) {
    for (const auto& h : headers->array) {
      const JsonValue* k = h.find("key");
      const JsonValue* v = h.find("value");
      if (!k || k->kind != JsonValue::Kind::kString) bad_request("a header without a text 'key'");
      record.headers.emplace_back(
          k->string, v && v->kind == JsonValue::Kind::kString ? std::optional<std::string>(v->string) : std::nullopt);
    }
  }
  const std::vector<std::string> only{topic};
  const int32_t count = topic_partitions(call.kafka, &only).at(topic);
  int64_t partition = call.body_int("partition", -1);
  if (partition >= count) bad_request("no partition " + std::to_string(partition) + " in " + topic);
  if (partition < 0) {
    static std::atomic<uint32_t> round_robin{0};
    partition = record.key ? kafka_key_partition(*record.key, count)
                           : static_cast<int32_t>(round_robin.fetch_add(1) % static_cast<uint32_t>(count));
  }
  const auto batch = client::encode_record_batch(std::move(record));

  protocol::ProduceRequest req;
  req.acks = -1;
  req.timeout_ms = 10000;
  auto& t = req.topic_data.emplace_back();
  t.name = topic;
  auto& p = t.partition_data.emplace_back();
  p.index = static_cast<int32_t>(partition);
  p.records = protocol::Records::bytes(batch);
  auto resp = call.kafka.call<protocol::ProduceResponse>(req, 9);
  for (const auto& tr : resp.responses) {
    for (const auto& pr : tr.partition_responses) {
      client::throw_if_kafka_error(pr.error_code, pr.error_message);
      return JsonWriter()
          .begin_object()
          .field("partition", pr.index)
          .field("offset", pr.base_offset)
          .end_object()
          .take();
    }
  }
  throw client::ClientError(500, "UNKNOWN_SERVER_ERROR", -1, "the broker did not answer for the partition");
}

}  // namespace skiff::console
