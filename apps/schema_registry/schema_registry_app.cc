#include "apps/schema_registry/schema_registry_app.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "apps/schema_registry/registry_log.h"
#include "network/listen_socket.h"

namespace skiff::schemareg {

SchemaRegistryApp::SchemaRegistryApp(coordinator::StateTopic& topic, SchemaRegistryAppConfig config)
    : state_topic_(topic),
      topic_(topic, config.max_message_bytes),
      service_(topic_),
      http_(service_, config.http),
      config_(std::move(config)) {}

SchemaRegistryApp::~SchemaRegistryApp() { stop(); }

void SchemaRegistryApp::start() {
  const auto t0 = std::chrono::steady_clock::now();
  if (auto why = topic_.open()) throw std::runtime_error(*why);
  const int64_t records = topic_.load(service_);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  registry_log().info("schema registry: replayed {} record(s) of {} in {:.1f} ms", records, kSchemasTopic, ms);
  network::HttpServerConfig http;
  http.limits.max_body_bytes = std::clamp<size_t>(2 * static_cast<size_t>(config_.max_message_bytes) + 65536,
                                                  http.limits.max_body_bytes, size_t{64} << 20);
  auto server = std::make_unique<network::HttpServer>(http);
  server->set_fallback([this](const network::HttpRequest& r) { return http_.answer(r); });
  try {
    for (const auto& l : config_.listeners) server->bind(l.host, l.port, config::is_https(l) ? config_.tls : nullptr);
  } catch (const network::BindError& e) {
    if (config_.listeners_explicit) throw std::runtime_error(std::string("schema.registry.listeners ") + e.what());
    registry_log().warn(
        "schema registry is off: {} (schema.registry.listeners is the default; set it to a free port, e.g. "
        "--override schema.registry.listeners=http://127.0.0.1:0, or empty to run without it)",
        e.what());
    return;
  }
  server->start();
  server_ = std::move(server);
}

void SchemaRegistryApp::stop() {
  if (server_) server_->stop();
  server_.reset();
  state_topic_.stop();
}

std::vector<std::string> SchemaRegistryApp::endpoints() const {
  return server_ ? server_->endpoint_texts() : std::vector<std::string>{};
}

}  // namespace skiff::schemareg
