#include "apps/schema_registry/registry_routes.h"

#include <cctype>
#include <charconv>
#include <chrono>
#include <future>
#include <memory>

#include "apps/schema_registry/registry_json.h"

namespace skiff::schemareg {
namespace {

using Handler = network::HttpResponse (*)(RouteCall&, const std::vector<std::string>& args);

struct Route {
  const char* method;
  std::vector<std::string> pattern;  // "*": a parameter
  Handler handler;
  bool writes = false;  // changes the registry: needs may_write
};

bool flag(const RouteCall& c, const std::string& name) {
  auto it = c.request.query.find(name);
  if (it == c.request.query.end()) return false;
  std::string v = it->second;
  for (auto& ch : v) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return v == "true";
}

std::string param(const RouteCall& c, const std::string& name) {
  auto it = c.request.query.find(name);
  return it == c.request.query.end() ? std::string() : it->second;
}

std::optional<std::string> opt_param(const RouteCall& c, const std::string& name) {
  auto it = c.request.query.find(name);
  return it == c.request.query.end() ? std::nullopt : std::optional(it->second);
}

template <class T, class Write>
network::HttpResponse reply(const Expected<T, RegistryError>& r, Write write) {
  if (!r) return error_response(r.error());
  return ok_response(write(*r));
}

// A write's answer, once durable: the HTTP thread waits for it.
template <class T, class Start>
Expected<T, RegistryError> wait_for(Start start) {
  auto promise = std::make_shared<std::promise<Expected<T, RegistryError>>>();
  auto future = promise->get_future();
  start([promise](Expected<T, RegistryError> r) { promise->set_value(std::move(r)); });
  if (future.wait_for(std::chrono::seconds(60)) != std::future_status::ready)
    return unexpected(errors::operation_timeout("Register operation timed out"));
  return future.get();
}

Expected<int32_t, RegistryError> id_of(const std::string& text) {
  int32_t id = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec != std::errc() || p != text.data() + text.size())
    return unexpected(RegistryError{404, 404, "HTTP 404 Not Found"});
  return id;
}

std::optional<std::string> subject_scope(const std::vector<std::string>& args) {
  return args.empty() ? std::nullopt : std::optional(args[0]);
}

// --- /schemas ---------------------------------------------------------------

// The schema with its text in the request's ?format= (Confluent's formattedString).
Expected<SubjectSchema, RegistryError> in_format(const RouteCall& c, Expected<SubjectSchema, RegistryError> s) {
  const std::string format = param(c, "format");
  if (!s || format.empty()) return s;
  auto text = c.service.formatted(*s, format);
  if (!text) return unexpected(text.error());
  s->schema = std::move(*text);
  return s;
}

network::HttpResponse get_schema_by_id(RouteCall& c, const std::vector<std::string>& a) {
  auto id = id_of(a[0]);
  if (!id) return error_response(id.error());
  const auto subject = opt_param(c, "subject");
  const std::optional<int32_t> max = flag(c, "fetchMaxId") ? std::optional(c.service.max_id(subject)) : std::nullopt;
  return reply(in_format(c, c.service.schema_by_id(*id, subject)),
               [&](const SubjectSchema& s) { return schema_string_json(s, max); });
}

network::HttpResponse get_schema_text_by_id(RouteCall& c, const std::vector<std::string>& a) {
  auto id = id_of(a[0]);
  if (!id) return error_response(id.error());
  return reply(in_format(c, c.service.schema_by_id(*id, opt_param(c, "subject"))),
               [](const SubjectSchema& s) { return s.schema; });
}

network::HttpResponse get_subjects_of_id(RouteCall& c, const std::vector<std::string>& a) {
  auto id = id_of(a[0]);
  if (!id) return error_response(id.error());
  return reply(c.service.subjects_of_id(*id, opt_param(c, "subject"), flag(c, "deleted")), strings_json);
}

network::HttpResponse get_versions_of_id(RouteCall& c, const std::vector<std::string>& a) {
  auto id = id_of(a[0]);
  if (!id) return error_response(id.error());
  return reply(c.service.versions_of_id(*id, opt_param(c, "subject"), flag(c, "deleted")), subject_versions_json);
}

network::HttpResponse get_schemas(RouteCall& c, const std::vector<std::string>&) {
  return ok_response(
      schemas_json(c.service.list_schemas(param(c, "subjectPrefix"), flag(c, "deleted"), flag(c, "latestOnly"))));
}

network::HttpResponse get_schema_types(RouteCall&, const std::vector<std::string>&) {
  return ok_response(strings_json(RegistryService::schema_types()));
}

// --- /subjects --------------------------------------------------------------

network::HttpResponse get_subjects(RouteCall& c, const std::vector<std::string>&) {
  return ok_response(
      strings_json(c.service.list_subjects(param(c, "subjectPrefix"), flag(c, "deleted"), flag(c, "deletedOnly"))));
}

network::HttpResponse post_lookup(RouteCall& c, const std::vector<std::string>& a) {
  auto in = decode_schema_request(c.request.body);
  if (!in) return error_response(in.error());
  return reply(c.service.lookup(a[0], *in, flag(c, "normalize"), flag(c, "deleted")), schema_json);
}

network::HttpResponse delete_subject(RouteCall& c, const std::vector<std::string>& a) {
  const bool permanent = flag(c, "permanent");
  auto r = wait_for<std::vector<int32_t>>([&](auto done) { c.service.delete_subject(a[0], permanent, done); });
  return reply(r, ints_json);
}

network::HttpResponse get_versions(RouteCall& c, const std::vector<std::string>& a) {
  return reply(c.service.list_versions(a[0], flag(c, "deleted"), flag(c, "deletedOnly")), ints_json);
}

network::HttpResponse post_register(RouteCall& c, const std::vector<std::string>& a) {
  auto in = decode_schema_request(c.request.body);
  if (!in) return error_response(in.error());
  const bool normalize = flag(c, "normalize");
  auto r =
      wait_for<SubjectSchema>([&](auto done) { c.service.register_schema(a[0], std::move(*in), normalize, done); });
  return reply(r, register_json);
}

network::HttpResponse get_version(RouteCall& c, const std::vector<std::string>& a) {
  return reply(in_format(c, c.service.get_version(a[0], a[1], flag(c, "deleted"))), schema_json);
}

network::HttpResponse get_version_schema(RouteCall& c, const std::vector<std::string>& a) {
  return reply(in_format(c, c.service.get_version(a[0], a[1], flag(c, "deleted"))),
               [](const SubjectSchema& s) { return s.schema; });
}

network::HttpResponse delete_version(RouteCall& c, const std::vector<std::string>& a) {
  const bool permanent = flag(c, "permanent");
  auto r = wait_for<int32_t>([&](auto done) { c.service.delete_version(a[0], a[1], permanent, done); });
  return reply(r, [](int32_t v) { return std::to_string(v); });
}

network::HttpResponse get_referenced_by(RouteCall& c, const std::vector<std::string>& a) {
  return reply(c.service.referenced_by(a[0], a[1], flag(c, "deleted")), ints_json);
}

network::HttpResponse post_compatibility(RouteCall& c, const std::vector<std::string>& a) {
  auto in = decode_schema_request(c.request.body);
  if (!in) return error_response(in.error());
  const bool verbose = flag(c, "verbose");
  const auto version = a.size() > 1 ? std::optional(a[1]) : std::nullopt;
  return reply(c.service.check_compatibility(a[0], version, *in, flag(c, "normalize"), verbose),
               [&](const CompatibilityResult& r) { return compatibility_json(r, verbose); });
}

// --- /config, /mode, /contexts, / -------------------------------------------

network::HttpResponse get_config(RouteCall& c, const std::vector<std::string>& a) {
  return reply(c.service.get_config(subject_scope(a), flag(c, "defaultToGlobal")),
               [](const ConfigRecord& r) { return config_json(r); });
}

network::HttpResponse put_config(RouteCall& c, const std::vector<std::string>& a) {
  auto update = decode_config_request(c.request.body);
  if (!update) return error_response(update.error());
  auto r = wait_for<ConfigRecord>([&](auto done) { c.service.put_config(subject_scope(a), std::move(*update), done); });
  return reply(r, [](const ConfigRecord& rec) { return config_update_json(rec); });
}

network::HttpResponse delete_config(RouteCall& c, const std::vector<std::string>& a) {
  auto r = wait_for<ConfigRecord>([&](auto done) { c.service.delete_config(subject_scope(a), done); });
  return reply(r, [](const ConfigRecord& rec) { return config_json(rec); });
}

network::HttpResponse get_mode(RouteCall& c, const std::vector<std::string>& a) {
  return reply(c.service.get_mode(subject_scope(a), flag(c, "defaultToGlobal")), [](Mode m) { return mode_json(m); });
}

network::HttpResponse put_mode(RouteCall& c, const std::vector<std::string>& a) {
  auto mode = decode_mode_request(c.request.body);
  if (!mode) return error_response(mode.error());
  const bool force = flag(c, "force");
  auto r = wait_for<Mode>([&](auto done) { c.service.put_mode(subject_scope(a), *mode, force, done); });
  return reply(r, [](Mode m) { return mode_json(m); });
}

network::HttpResponse delete_mode(RouteCall& c, const std::vector<std::string>& a) {
  auto r = wait_for<Mode>([&](auto done) { c.service.delete_mode(subject_scope(a), done); });
  return reply(r, [](Mode m) { return mode_json(m); });
}

network::HttpResponse get_contexts(RouteCall& c, const std::vector<std::string>&) {
  return ok_response(strings_json(c.service.contexts()));
}

network::HttpResponse get_root(RouteCall&, const std::vector<std::string>&) { return ok_response("{}"); }

// Confluent's /v1/metadata/id: the Kafka cluster this registry runs in.
network::HttpResponse get_metadata_id(RouteCall& c, const std::vector<std::string>&) {
  return ok_response(R"({"scope":{"path":[],"clusters":{"kafka-cluster":")" + c.config.kafka_cluster_id +
                     R"(","schema-registry-cluster":"schema-registry"}}})");
}

const std::vector<Route>& routes() {
  static const std::vector<Route> table = {
      {"GET", {}, get_root},
      {"GET", {"schemas"}, get_schemas},
      {"GET", {"schemas", "types"}, get_schema_types},
      {"GET", {"schemas", "ids", "*"}, get_schema_by_id},
      {"GET", {"schemas", "ids", "*", "schema"}, get_schema_text_by_id},
      {"GET", {"schemas", "ids", "*", "subjects"}, get_subjects_of_id},
      {"GET", {"schemas", "ids", "*", "versions"}, get_versions_of_id},
      {"GET", {"subjects"}, get_subjects},
      {"POST", {"subjects", "*"}, post_lookup},
      {"DELETE", {"subjects", "*"}, delete_subject, true},
      {"GET", {"subjects", "*", "versions"}, get_versions},
      {"POST", {"subjects", "*", "versions"}, post_register, true},
      {"GET", {"subjects", "*", "versions", "*"}, get_version},
      {"DELETE", {"subjects", "*", "versions", "*"}, delete_version, true},
      {"GET", {"subjects", "*", "versions", "*", "schema"}, get_version_schema},
      {"GET", {"subjects", "*", "versions", "*", "referencedby"}, get_referenced_by},
      {"POST", {"compatibility", "subjects", "*", "versions"}, post_compatibility},
      {"POST", {"compatibility", "subjects", "*", "versions", "*"}, post_compatibility},
      {"GET", {"config"}, get_config},
      {"PUT", {"config"}, put_config, true},
      {"DELETE", {"config"}, delete_config, true},
      {"GET", {"config", "*"}, get_config},
      {"PUT", {"config", "*"}, put_config, true},
      {"DELETE", {"config", "*"}, delete_config, true},
      {"GET", {"mode"}, get_mode},
      {"PUT", {"mode"}, put_mode, true},
      {"DELETE", {"mode"}, delete_mode, true},
      {"GET", {"mode", "*"}, get_mode},
      {"PUT", {"mode", "*"}, put_mode, true},
      {"DELETE", {"mode", "*"}, delete_mode, true},
      {"GET", {"contexts"}, get_contexts},
      {"GET", {"v1", "metadata", "id"}, get_metadata_id},
  };
  return table;
}

// The parameters of `path` under `pattern`, or nullopt when it does not match.
std::optional<std::vector<std::string>> match(const std::vector<std::string>& pattern,
                                              const std::vector<std::string>& path) {
  if (pattern.size() != path.size()) return std::nullopt;
  std::vector<std::string> args;
  for (size_t i = 0; i < path.size(); ++i) {
    if (pattern[i] == "*")
      args.push_back(path[i]);
    else if (pattern[i] != path[i])
      return std::nullopt;
  }
  return args;
}

std::string endpoint_of(const Route& r) {
  std::string out = r.method;
  out += ' ';
  for (const auto& p : r.pattern) out += "/" + (p == "*" ? std::string("{}") : p);
  if (r.pattern.empty()) out += "/";
  return out;
}

}  // namespace

network::HttpResponse dispatch(RouteCall& call, std::string& endpoint) {
  const std::string method = call.request.method == "HEAD" ? "GET" : call.request.method;
  bool path_known = false;
  endpoint = "unknown";
  for (const auto& r : routes()) {
    auto args = match(r.pattern, call.path);
    if (!args) continue;
    path_known = true;
    if (method != r.method) continue;
    endpoint = endpoint_of(r);
    if (r.writes && call.config.may_write && !call.config.may_write(call.user, call.request.peer_address))
      return error_response(RegistryError{403, 40301,
                                          "User " + call.user +
                                              " is not authorized to change the Schema Registry (it needs ALTER on "
                                              "the cluster, or to be a super user)"});
    return r.handler(call, *args);
  }
  if (path_known) return error_response(RegistryError{405, 405, "HTTP 405 Method Not Allowed"});
  return error_response(RegistryError{404, 404, "HTTP 404 Not Found"});
}

}  // namespace skiff::schemareg
