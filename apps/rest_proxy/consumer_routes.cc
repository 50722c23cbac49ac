// The v2 consumer instance routes (Confluent's ConsumersResource) over
// ConsumerInstances: /consumers/{group}[/instances/{name}[/...]].
#include <algorithm>
#include <set>

#include "apps/rest_proxy/rest_errors.h"
#include "apps/rest_proxy/v2_handlers.h"
#include "common/json_writer.h"

namespace skiff::restproxy {
namespace {

constexpr auto kMaxRequestTimeout = std::chrono::minutes(5);

std::string string_member(const JsonValue& body, const char* name) {
  const JsonValue* v = body.find(name);
  if (!v || v->kind == JsonValue::Kind::kNull) return "";
  if (v->kind != JsonValue::Kind::kString) v2_unprocessable(std::string("'") + name + "' must be a string");
  return v->string;
}

[[noreturn]] void invalid_config(const std::string& why) {
  throw RestError(422, 42204, "Invalid consumer configuration: " + why);
}

bool auto_commit_of(const JsonValue& body) {
  const JsonValue* v = body.find("auto.commit.enable");
  if (!v || v->kind == JsonValue::Kind::kNull) return true;
  if (v->kind == JsonValue::Kind::kBool) return v->boolean;
  if (v->kind == JsonValue::Kind::kString && (v->string == "true" || v->string == "false")) return v->string == "true";
  invalid_config("auto.commit.enable must be true or false");
}

network::HttpResponse create(V2Services& s, const RestCall& call, const std::string& group) {
  JsonValue empty;
  empty.kind = JsonValue::Kind::kObject;
  const JsonValue body = v2_body(call, false).value_or(empty);
  ConsumerSettings settings;
  settings.group = group;
  settings.principal = call.principal;
  settings.user = call.user;
  settings.name = string_member(body, "name");
  if (settings.name.empty()) settings.name = string_member(body, "id");
  if (settings.name.find('/') != std::string::npos) invalid_config("the name must not hold '/'");
  const std::string format = string_member(body, "format");
  auto f = parse_format_name(format.empty() ? "binary" : format);
  if (!f) invalid_config("unknown format '" + format + "'");
  settings.format = *f;
  const std::string reset = string_member(body, "auto.offset.reset");
  if (!reset.empty() && reset != "earliest" && reset != "latest" && reset != "none")
    invalid_config("auto.offset.reset must be earliest, latest or none");
  if (!reset.empty()) settings.auto_offset_reset = reset;
  settings.auto_commit = auto_commit_of(body);
  settings.fetch_min_bytes = static_cast<int32_t>(v2_int(body, "fetch.min.bytes", 0, 64 << 20).value_or(1));
  const auto timeout =
      v2_int(body, "consumer.request.timeout.ms", 0, std::chrono::milliseconds(kMaxRequestTimeout).count());
  settings.request_timeout = timeout ? std::chrono::milliseconds(*timeout) : call.limits.consumer_request_timeout;
  auto instance = s.consumers.create(std::move(settings));
  const auto& name = instance->settings().name;
  JsonWriter w;
  w.begin_object()
      .field("instance_id", name)
      .field("base_uri", call.base_uri + "/consumers/" + group + "/instances/" + name)
      .end_object();
  return v2_json(w.take());
}

network::HttpResponse topics_body(const std::vector<std::string>& topics) {
  JsonWriter w;
  w.begin_object().key("topics").begin_array();
  for (const auto& t : topics) w.value(t);
  w.end_array().end_object();
  return v2_json(w.take());
}

network::HttpResponse subscription(ConsumerInstances::Lease& c, const RestCall& call, const std::string& method) {
  if (method == "GET") return topics_body(c->subscription());
  if (method == "DELETE") {
    c->unsubscribe();
    return v2_no_content();
  }
  const JsonValue body = *v2_body(call, true);
  const JsonValue* topics = body.find("topics");
  const JsonValue* pattern = body.find("topic_pattern");
  const bool has_topics = topics && topics->kind != JsonValue::Kind::kNull;
  const bool has_pattern = pattern && pattern->kind != JsonValue::Kind::kNull;
  if (has_topics == has_pattern) v2_unprocessable("give either 'topics' or 'topic_pattern'");
  std::vector<std::string> names;
  if (has_topics) {
    if (topics->kind != JsonValue::Kind::kArray || topics->array.empty())
      v2_unprocessable("'topics' must be a non-empty array");
    for (const auto& t : topics->array) {
      if (t.kind != JsonValue::Kind::kString || t.string.empty()) v2_unprocessable("a topic must be a name");
      names.push_back(t.string);
    }
  } else if (pattern->kind != JsonValue::Kind::kString || pattern->string.empty() || pattern->string.size() > 1000) {
    v2_unprocessable("'topic_pattern' must be a regular expression");
  }
  c->subscribe(std::move(names), has_pattern ? std::optional<std::string>(pattern->string) : std::nullopt);
  return v2_no_content();
}

network::HttpResponse partitions_body(const std::set<TopicPartition>& partitions) {
  JsonWriter w;
  w.begin_object().key("partitions").begin_array();
  for (const auto& [t, p] : partitions) w.begin_object().field("topic", t).field("partition", p).end_object();
  w.end_array().end_object();
  return v2_json(w.take());
}

int64_t query_int(const RestCall& call, const char* name, int64_t fallback) {
  auto it = call.request.query.find(name);
  if (it == call.request.query.end() || it->second.empty()) return fallback;
  try {
    size_t used = 0;
    const int64_t n = std::stoll(it->second, &used);
    if (used == it->second.size()) return n;
  } catch (const std::exception&) {
  }
  throw RestError(400, 400, std::string("query parameter '") + name + "' is not a number");
}

network::HttpResponse records(ConsumerInstances::Lease& c, const RestCall& call) {
  const auto configured = c->settings().request_timeout;
  int64_t timeout = query_int(call, "timeout", -1);
  if (timeout < 0 || timeout > configured.count()) timeout = configured.count();
  int64_t max_bytes = query_int(call, "max_bytes", call.limits.consumer_request_max_bytes);
  max_bytes = std::clamp<int64_t>(max_bytes, 1, call.limits.consumer_request_max_bytes);
  const auto got = c->poll(std::chrono::milliseconds(timeout), max_bytes, call.limits.max_records_per_response);
  JsonWriter w;
  w.begin_array();
  for (const auto& r : got) {
    w.begin_object().field("topic", r.topic).key("key").raw(r.key).key("value").raw(r.value);
    w.field("partition", r.partition).field("offset", r.offset).end_object();
  }
  w.end_array();
  auto response = v2_json(w.take());
  response.content_type = content_type_of(c->settings().format);
  return response;
}

network::HttpResponse offsets(ConsumerInstances::Lease& c, const RestCall& call, const std::string& method) {
  if (method == "GET") {
    const auto asked = v2_partitions(*v2_body(call, true));
    JsonWriter w;
    w.begin_object().key("offsets").begin_array();
    for (const auto& [tp, committed] : c->committed(asked)) {
      if (committed.offset < 0) continue;
      w.begin_object().field("topic", tp.first).field("partition", tp.second).field("offset", committed.offset);
      w.field("metadata", committed.metadata).end_object();
    }
    w.end_array().end_object();
    return v2_json(w.take());
  }
  const auto body = v2_body(call, false);
  if (body && body->find("offsets")) {
    auto given = v2_offsets(*body);
    for (auto& [tp, offset] : given) ++offset;  // Confluent commits the offset after the one named
    c->commit(given);
  } else {
    c->commit(std::nullopt);
  }
  return v2_json("[]");
}

network::HttpResponse positions(ConsumerInstances::Lease& c, const RestCall& call, const std::string& where) {
  const JsonValue body = *v2_body(call, true);
  if (where.empty()) {
    if (!body.find("offsets") && !body.find("timestamps")) v2_unprocessable("give 'offsets' or 'timestamps'");
    if (body.find("offsets")) c->seek(v2_offsets(body));
    if (body.find("timestamps")) c->seek_to_times(v2_timestamps(body));
  } else {
    c->seek_to(v2_partitions(body), where == "beginning");
  }
  return v2_no_content();
}

std::optional<network::HttpResponse> instance_get(ConsumerInstances::Lease& c, const RestCall& call,
                                                  const std::string& what) {
  if (what == "subscription") return subscription(c, call, "GET");
  if (what == "assignments") return partitions_body(c->assignment());
  if (what == "records") return records(c, call);
  if (what == "offsets") return offsets(c, call, "GET");
  return std::nullopt;
}

std::optional<network::HttpResponse> instance_post(ConsumerInstances::Lease& c, const RestCall& call,
                                                   const std::string& what) {
  if (what == "subscription") return subscription(c, call, "POST");
  if (what == "assignments") {
    c->assign(v2_partitions(*v2_body(call, true)));
    return v2_no_content();
  }
  if (what == "positions") return positions(c, call, "");
  if (what == "offsets") return offsets(c, call, "POST");
  return std::nullopt;
}

std::optional<network::HttpResponse> instance_call(ConsumerInstances::Lease& c, const RestCall& call) {
  static const std::set<std::string> kResources{"subscription", "assignments", "positions", "records", "offsets"};
  const auto& path = call.path;
  const std::string& method = call.request.method;
  const std::string& what = path[4];
  if (path.size() == 6) {
    if (what != "positions" || (path[5] != "beginning" && path[5] != "end")) return std::nullopt;
    if (method != "POST") throw RestError(405, 405, "HTTP 405 Method Not Allowed");
    return positions(c, call, path[5]);
  }
  if (kResources.count(what) == 0) return std::nullopt;
  std::optional<network::HttpResponse> r;
  if (method == "GET") r = instance_get(c, call, what);
  if (method == "POST") r = instance_post(c, call, what);
  if (method == "DELETE" && what == "subscription") r = subscription(c, call, "DELETE");
  if (!r) throw RestError(405, 405, "HTTP 405 Method Not Allowed");
  return r;
}

}  // namespace

std::optional<network::HttpResponse> consumers_v2(V2Services& s, const RestCall& call) {
  const auto& path = call.path;
  const std::string& method = call.request.method;
  if (path.size() == 2) {
    if (method != "POST") throw RestError(405, 405, "HTTP 405 Method Not Allowed");
    return create(s, call, path[1]);
  }
  if (path.size() < 4 || path.size() > 6 || path[2] != "instances") return std::nullopt;
  if (path.size() == 4 && method != "DELETE") throw RestError(405, 405, "HTTP 405 Method Not Allowed");
  {
    auto lease = s.consumers.find(path[1], path[3]);
    // Another user's instance is not found: it reads as its creator.
    if (lease->settings().user != call.user) throw RestError(404, 40403, "Consumer instance not found.");
    if (path.size() > 4) return instance_call(lease, call);
  }
  s.consumers.remove(path[1], path[3]);
  return v2_no_content();
}

}  // namespace skiff::restproxy
