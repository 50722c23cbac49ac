#include "apps/rest_proxy/v3_json.h"

#include <fmt/format.h>

#include "apps/rest_proxy/rest_errors.h"
#include "apps/rest_proxy/rest_media.h"

namespace skiff::restproxy {
namespace {

std::string encode_segment(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~')
      out += static_cast<char>(c);
    else
      out += fmt::format("%{:02X}", c);
  }
  return out;
}

}  // namespace

std::string v3_url(const std::string& base, std::initializer_list<std::string_view> parts) {
  std::string out = base + "/v3";
  for (auto p : parts) out += "/" + encode_segment(p);
  return out;
}

std::string v3_crn(std::initializer_list<std::pair<std::string_view, std::string_view>> parts) {
  std::string out = "crn://";
  for (const auto& [type, id] : parts) out += fmt::format("/{}={}", type, id);
  return out;
}

void begin_resource(JsonWriter& w, std::string_view kind, const std::string& self, const std::string& crn) {
  w.begin_object().field("kind", kind).key("metadata").begin_object().field("self", self);
  w.field("resource_name", crn).end_object();
}

void begin_collection(JsonWriter& w, std::string_view kind, const std::string& self) {
  w.begin_object().field("kind", kind).key("metadata").begin_object().field("self", self);
  w.key("next").null().end_object().key("data").begin_array();
}

void end_collection(JsonWriter& w) { w.end_array().end_object(); }

void related(JsonWriter& w, std::string_view name, const std::string& url) {
  w.key(name).begin_object().field("related", url).end_object();
}

network::HttpResponse json_response(std::string body, int status) {
  network::HttpResponse r;
  r.status = status;
  r.content_type = kJson;
  r.body = std::move(body);
  return r;
}

JsonValue json_body(const std::string& body) {
  auto v = parse_json(body, 64);
  if (!v) throw RestError(400, 400, "The request body is not valid JSON");
  if (v->kind != JsonValue::Kind::kObject) throw RestError(400, 400, "The request body must be a JSON object");
  return std::move(*v);
}

}  // namespace skiff::restproxy
