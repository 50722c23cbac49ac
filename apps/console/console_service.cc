#include "apps/console/console_service.h"

#include <spdlog/spdlog.h>

#include "common/log_escape.h"
#include "security/sasl/password_login.h"

namespace skiff::console {
namespace {

network::HttpResponse json_response(int status, std::string body) {
  network::HttpResponse r;
  r.status = status;
  r.content_type = "application/json";
  r.body = std::move(body);
  r.headers.emplace_back("Cache-Control", "no-store");
  return r;
}

network::HttpResponse error_response(const client::ClientError& e) {
  JsonWriter w;
  w.begin_object().field("error", e.error).field("error_code", int64_t{e.error_code}).field("message", e.what());
  w.end_object();
  auto r = json_response(e.status, w.take());
  if (e.status == 401) r.headers.emplace_back("WWW-Authenticate", "Basic realm=\"skiff\", charset=\"UTF-8\"");
  return r;
}

struct Endpoints {
  const char* method;
  const char* path;
  Endpoint endpoint;
  bool writes;
};

const std::vector<Endpoints>& endpoint_table() {
  static const std::vector<Endpoints> table{
      {"GET", "/api/overview", overview, false},
      {"GET", "/api/stats", stats, false},
      {"GET", "/api/clients", clients, false},
      {"GET", "/api/topics", list_topics, false},
      {"GET", "/api/topic", describe_topic, false},
      {"POST", "/api/topics/create", create_topic, true},
      {"POST", "/api/topics/delete", delete_topic, true},
      {"POST", "/api/topic/configs", alter_topic_configs, true},
      {"GET", "/api/messages", browse_messages, false},
      {"POST", "/api/messages/produce", produce_message, true},
      {"GET", "/api/schemas", list_schema_subjects, false},
      {"GET", "/api/schema", describe_schema_subject, false},
      {"GET", "/api/groups", list_groups, false},
      {"GET", "/api/group", describe_group, false},
      {"POST", "/api/group/reset", reset_group_offsets, true},
      {"POST", "/api/group/delete", delete_group, true},
  };
  return table;
}

}  // namespace

ConsoleService::ConsoleService(network::RequestHandler& handler, const sasl::SaslMechanisms& sasl,
                               const config::BrokerConfig& config, ConsoleBroker broker)
    : handler_(handler), sasl_(sasl), broker_(std::move(broker)), write_enabled_(config.http_console_write_enabled) {
  listener_ = sasl::password_listener(config, sasl_);
  if (!listener_.empty()) {
    auth_ = "basic";
  } else if (!config.listeners.empty()) {
    listener_ = config.listeners.front().name;
  }
}

client::ClientIdentity ConsoleService::identify(const network::HttpRequest& request) const {
  if (auth_ == "none") return {listener_, "User:ANONYMOUS"};
  auto unauthenticated = [](const char* why) { return client::ClientError(401, "UNAUTHENTICATED", -1, why); };
  if (!std::string_view(request.authorization).starts_with("Basic "))
    throw unauthenticated("this broker wants a user name and password");
  const auto credentials = sasl::basic_credentials(request.authorization);
  if (!credentials) throw unauthenticated("malformed Basic credentials");
  auto name = sasl::password_login(sasl_, listener_, credentials->user, credentials->password);
  if (!name) {
    spdlog::info("console: failed login for user {}", escaped(credentials->user));
    throw unauthenticated("wrong user name or password");
  }
  return {listener_, "User:" + *name};
}

network::HttpResponse ConsoleService::answer(const network::HttpRequest& request, const Endpoint& endpoint,
                                             bool writes) {
  try {
    client::InProcessClient kafka(handler_, sender_, identify(request));
    std::optional<JsonValue> body;
    if (request.method == "POST") {
      if (!request.content_type.starts_with("application/json"))
        throw client::ClientError(415, "BAD_REQUEST", -1, "a POST must carry Content-Type: application/json");
      if (writes && !write_enabled_)
        throw client::ClientError(403, "CONSOLE_READ_ONLY", -1,
                                  "the console is read-only (http.console.write.enabled=false)");
      body = parse_json(request.body);
      if (!body || body->kind != JsonValue::Kind::kObject) bad_request("the body is not a JSON object");
    }
    static const JsonValue kNull;
    ConsoleCall call{request, body ? *body : kNull, kafka, broker_, write_enabled_, auth_};
    return json_response(request.method == "POST" && request.path == "/api/topics/create" ? 201 : 200, endpoint(call));
  } catch (const client::ClientError& e) {
    return error_response(e);
  } catch (const protocol::DecodeError& e) {
    spdlog::error("console: undecodable answer from the broker: {}", e.what());
    return error_response(client::ClientError(500, "UNKNOWN_SERVER_ERROR", -1, "undecodable answer from the broker"));
  }
}

void ConsoleHost::publish(ConsoleService* service) {
  std::lock_guard lock(mu_);
  service_ = service;
}

network::HttpResponse ConsoleHost::answer(const network::HttpRequest& request, const Endpoint& endpoint,
                                          bool writes) const {
  std::lock_guard lock(mu_);
  if (!service_)
    return error_response(client::ClientError(503, "NOT_READY", -1, "the console answers once the broker has started"));
  return service_->answer(request, endpoint, writes);
}

void register_console_routes(network::HttpServer& http, const ConsoleHost& host) {
  for (const auto& e : endpoint_table()) {
    http.route(e.method, e.path,
               [&host, &e](const network::HttpRequest& request) { return host.answer(request, e.endpoint, e.writes); });
  }
}

}  // namespace skiff::console
