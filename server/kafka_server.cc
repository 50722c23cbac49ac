#include "server/kafka_server.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "api/quota/client_quota_store.h"
#include "api/quota/quota_manager.h"
#include "api/telemetry/client_metrics_manager.h"
#include "common/cpu_count.h"
#include "common/metrics.h"
#include "log/file_util.h"
#include "log/meta_properties.h"
#include "metadata/legacy_migration.h"
#include "security/acl/authorizer.h"
#include "security/sasl/password_login.h"
#include "server/dynamic_config_wiring.h"
#include "server/fd_budget.h"
#include "server/group_metrics.h"
#include "server/http_routes.h"
#include "server/rest_proxy_formats.h"
#include "server/share_metrics.h"
#include "server/storage_config.h"
#include "server/version.h"

namespace skiff::server {
namespace fs = std::filesystem;

namespace {

bool is_wildcard(const std::string& host) { return host.empty() || host == "0.0.0.0" || host == "::"; }

std::string local_host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof(buf) - 1) != 0 || buf[0] == '\0') return "localhost";
  return buf;
}

network::SocketServerConfig socket_server_config(
    const config::BrokerConfig& c, const std::map<std::string, std::shared_ptr<network::TlsListenerContext>>& tls) {
  network::SocketServerConfig s;
  for (const auto& l : c.listeners) {
    auto t = tls.find(l.name);
    s.listeners.push_back({l.name, l.host, l.port, t == tls.end() ? nullptr : t->second, c.uses_sasl(l.name)});
  }
  s.num_processors = c.num_network_threads;
  s.processor.max_request_bytes = c.socket_request_max_bytes;
  s.processor.connections_max_idle_ms = c.connections_max_idle_ms;
  s.processor.send_buffer_bytes = c.socket_send_buffer_bytes;
  s.processor.receive_buffer_bytes = c.socket_receive_buffer_bytes;
  s.processor.sasl_max_receive_bytes = c.sasl_server_max_receive_size;
  s.processor.coalesce_us = c.network_coalesce_us;
  s.queued_max_request_bytes = c.queued_max_request_bytes;
  s.max_connections = c.max_connections;
  s.max_connections_per_ip = c.max_connections_per_ip;
  s.max_connections_per_ip_overrides = c.max_connections_per_ip_overrides;
  return s;
}

// Writes, syncs and removes a probe file in `dir`: 0 or the errno of the
// first step that failed. The probe never stays behind.
int probe_write(const fs::path& dir) {
  const auto probe = dir / ".skiff-write-test";
  int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  int rc = fd < 0 ? errno : 0;
  if (fd >= 0) {
    if (::write(fd, "ok", 2) != 2 || ::fsync(fd) != 0) rc = errno == 0 ? EIO : errno;
    ::close(fd);
  }
  std::error_code ignore;
  fs::remove(probe, ignore);
  return rc;
}

}  // namespace

KafkaServer::KafkaServer(config::BrokerConfig config) : config_(std::move(config)) {}

KafkaServer::~KafkaServer() { shutdown(); }

// Fail at startup, with the path and the reason, rather than on first produce;
// except on a full disk: the broker starts, serves reads, and refuses produce
// with KAFKA_STORAGE_ERROR until space returns (appends retry on their own).
void KafkaServer::prepare_log_dirs() {
  for (const auto& dir : config_.log_dirs) {
    // Durably (each new directory's parent fsynced): a power cut must not
    // take the dir, meta.properties and the cluster id with it (issue 57).
    if (int ec = storage::create_directories_durably(dir))
      throw StartupError(fmt::format("log dir '{}' cannot be created: {}", dir, std::strerror(ec)));
    // Made by someone else just before (mkdir -p in a script): its name is
    // durable too before meta.properties is written into it.
    const auto parent = fs::path(dir).parent_path();
    if (int ec = storage::fsync_dir(parent.empty() ? fs::path(".") : parent))
      spdlog::warn("log dir {}: fsync of its parent directory failed: {}", dir, std::strerror(ec));
    int rc = probe_write(dir);
    if (rc == ENOSPC || rc == EDQUOT) {
      spdlog::error(
          "log dir {}: disk full (no space left on device); serving reads, refusing produce until space "
          "returns",
          dir);
    } else if (rc != 0) {
      throw StartupError(fmt::format("log dir '{}' is not writable: {}", dir, std::strerror(rc)));
    }
  }
}

// The store of the first log dir, with the state files of a broker before it
// migrated into it once (metadata/legacy_migration.h).
void KafkaServer::open_metadata() {
  auto store = metadata::open_metadata_store(config_.log_dirs.at(0));
  if (!store) throw StartupError(store.error().message);
  metadata_ = std::move(*store);
}

void KafkaServer::open_logs() {
  storage::LogManagerConfig lc;
  try {
    lc = make_log_manager_config(*dynamic_->current());
  } catch (const std::invalid_argument& e) {
    throw StartupError(e.what());
  }
  lc.fd_cache_capacity =
      derive_fd_budget(dynamic_->current()->max_connections, config_.log_fd_cache_size).segment_files;
  auto started = std::chrono::steady_clock::now();
  try {
    logs_ = std::make_unique<storage::LogManager>(std::move(lc));
  } catch (const std::exception& e) {
    throw StartupError(fmt::format("cannot load the logs in {}: {}", fmt::join(config_.log_dirs, ","), e.what()));
  }
  auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  spdlog::info("loaded {} topic(s) from {} in {:.1f} ms (cluster id {})", logs_->list_topics().size(),
               fmt::join(config_.log_dirs, ","), ms, logs_->cluster_id());
  broker_info_.cluster_id = logs_->cluster_id();
  if (auto meta = storage::read_meta_properties(config_.log_dirs.front()))
    broker_info_.metadata_directory_id = meta->directory_id;
}

void KafkaServer::resolve_advertised_endpoints() {
  broker_info_.node_id = config_.node_id;
  for (const auto& l : config_.listeners)
    if (config_.kraft.is_controller_listener(l.name)) broker_info_.controller_listeners.push_back(l.name);
  for (const auto& bound : socket_server_->bound_listeners()) {
    api::AdvertisedEndpoint e{bound.requested.name, bound.requested.host, bound.port};
    auto adv = std::find_if(config_.advertised_listeners.begin(), config_.advertised_listeners.end(),
                            [&](auto& a) { return a.name == bound.requested.name; });
    if (adv != config_.advertised_listeners.end()) {
      e.host = adv->host;
      e.port = adv->port == 0 ? bound.port : adv->port;
    } else if (is_wildcard(e.host)) {
      // As Kafka does: advertise this machine's name. In a container that name
      // is rarely what clients can reach, hence the warning; not for a KRaft
      // controller listener, which Kafka does not advertise to clients either.
      e.host = local_host_name();
      if (!config_.kraft.is_controller_listener(e.listener_name))
        spdlog::warn(
            "listener {} binds every interface and advertised.listeners is not set: clients will be told to connect "
            "to {}:{} (this host's name; in a container, the container's). A client that cannot resolve and reach "
            "that name bootstraps, then fails. Set advertised.listeners (KAFKA_ADVERTISED_LISTENERS in a container) "
            "to the address clients use, e.g. {}://localhost:{} for clients on the host with -p {}:{}, or "
            "{}://<service-name>:{} for clients in other containers on the same network",
            e.listener_name, e.host, e.port, e.listener_name, e.port, e.port, e.port, e.listener_name, e.port);
    }
    broker_info_.endpoints.push_back(e);
  }
}

// Before the logs load, so that /readyz answers 503 while they do.
void KafkaServer::start_http() {
  try {
    http_ = start_http_server(config_, {readiness_, published_metrics_, console_host_}, https_.http);
  } catch (const network::BindError& e) {
    throw StartupError(fmt::format("http.listeners {} (set http.listeners empty to run without HTTP)", e.what()));
  }
}

void KafkaServer::startup() {
  tls_ = build_tls_listeners(config_);  // first: bad key material stops the broker before anything else
  https_ = build_https_contexts(config_);
  prepare_log_dirs();
  start_http();
  readiness_.set(Readiness::State::kLoadingLogs);
  open_metadata();
  dynamic_ = load_dynamic_config(config_, metadata_->ns(metadata::kDynamicBrokerConfig));
  open_logs();
  metrics_ = std::make_unique<BrokerMetrics>(*logs_, config_.metrics_partition_series, config_.metrics_requests);
  start_tiered_storage();  // after the logs, before any produce: every log learns its highest remote offset
  published_metrics_.publish(metrics_.get());
  readiness_.set(Readiness::State::kStartingListeners);
  channel_ = std::make_unique<network::RequestChannel>(config_.queued_max_requests, static_cast<size_t>(usable_cpus()));
  socket_server_ = std::make_unique<network::SocketServer>(socket_server_config(*dynamic_->current(), tls_), *channel_);
  try {
    socket_server_->startup();
  } catch (const network::BindError& e) {
    socket_server_.reset();
    throw StartupError(e.what());
  }
  resolve_advertised_endpoints();
  wire_dynamic_config(*dynamic_, metadata_->ns(metadata::kDynamicBrokerConfig), *logs_, *socket_server_->quotas());
  components_ = std::make_unique<BrokerComponents>(config_, broker_info_, *logs_, *metadata_, dynamic_.get());
  if (tiered_) components_->services().remote_reads = &tiered_->reads();  // reads below the local start
  apis_ = std::make_unique<api::KafkaApis>(components_->services());
  apis_->set_topic_metrics(metrics_->topics());
  auto& software = metrics_->client_software(socket_server_->quotas());
  apis_->set_client_software(&software);
  channel_->set_observer(metrics_->requests());
  channel_->set_connection_listener(components_->connection_listener());
  apis_->set_error_observer(metrics_->requests());
  // Only now that the coordinator exists; shutdown withdraws the metrics before apis_ goes.
  metrics_->registry().add_collector([&groups = components_->groups(), &logs = *logs_,
                                      per_partition = config_.metrics_partition_series](metrics::Exposition& out) {
    collect_groups(out, groups, logs, per_partition);
  });
  metrics_->registry().add_collector([&shares = components_->share_partitions(), &logs = *logs_,
                                      per_partition = config_.metrics_partition_series,
                                      traffic = config_.metrics_requests](metrics::Exposition& out) {
    collect_share(out, shares, logs, per_partition, traffic);
  });
  metrics_->registry().add_collector(  // KIP-714's pushed client metrics
      [&telemetry = components_->client_metrics()](metrics::Exposition& out) { telemetry.collect(out); });
  metrics_->registry().add_collector(
      [&quotas = components_->quotas()](metrics::Exposition& out) { quotas.collect(out); });
  socket_server_->quotas()->set_ip_rate_quota(
      [store = components_->client_quotas()](const std::string& ip) { return store->resolve_ip(ip); });
  handlers_ = std::make_unique<RequestHandlerPool>(dynamic_->current()->num_io_threads, *channel_, *apis_);
  metrics_->registry().add_collector([this, &software](metrics::Exposition& out) {
    collect_network(out, *channel_, *socket_server_, *handlers_, software);
  });
  wire_thread_pools(*dynamic_, *socket_server_, *handlers_, std::chrono::milliseconds(config_.shutdown_timeout_ms));
  start_schema_registry();
  start_console();     // after the registry: the console reads its schemas
  start_rest_proxy();  // after the registry: its embedded formats' schemas are there
  logs_->start();
  started_ = true;
  readiness_.set(Readiness::State::kReady);
}

// Tiered storage (server/tiered_storage.h), when remote.log.storage.system.enable.
void KafkaServer::start_tiered_storage() {
  if (!config_.tiered_storage.enabled) return;
  try {
    tiered_ = std::make_unique<TieredStorage>(config_, *logs_, dynamic_.get());
    tiered_->start();
  } catch (const TieredStorageStartError&) {
    tiered_.reset();
    throw;  // a configuration error (exit code 2)
  } catch (const std::exception& e) {
    tiered_.reset();
    throw StartupError(fmt::format("tiered storage: {}", e.what()));
  }
  metrics_->registry().add_collector(
      [&tiered = *tiered_, &logs = *logs_](metrics::Exposition& out) { tiered.collect(out, logs); });
}

void KafkaServer::start_console() {
  console::ConsoleBroker broker;
  broker.info = &broker_info_;
  broker.version = kVersion;
  broker.started_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  if (http_) broker.http_listeners = http_->endpoint_texts();  // an https:// one with its scheme
  broker.security_protocols = config_.listener_security_protocol_map;
  broker.metrics = config_.metrics_requests ? &metrics_->registry() : nullptr;
  broker.telemetry_clients = [m = &components_->client_metrics()] {
    std::vector<console::TelemetryClient> out;
    for (auto& c : m->instances())
      out.push_back({c.id.to_string(), c.client.client_id, c.client.software_name, c.client.software_version,
                     c.client.source_address, c.last_push_ms, std::move(c.metrics)});
    return out;
  };
  broker.share_in_flight = [&shares = components_->share_partitions(), &logs = *logs_](const std::string& group) {
    console::ShareInFlight out;
    for (const auto& p : shares.partition_stats()) {
      if (p.group_id != group) continue;
      if (auto topic = logs.topic_by_id(p.tp.topic_id)) out[{topic->name, p.tp.partition}] = p.in_flight_records;
    }
    return out;
  };
  if (registry_) {
    schema_catalog_ = std::make_unique<RegistryCatalog>(registry_->service());
    broker.schemas = schema_catalog_.get();
  }
  console_ =
      std::make_unique<console::ConsoleService>(*apis_, components_->sasl_mechanisms(), config_, std::move(broker));
  console_host_.publish(console_.get());
}

// The built-in Schema Registry (apps/schema_registry/), when
// schema.registry.listeners names an endpoint; its credentials are the
// console's (HTTP Basic against the first SASL listener with a password
// mechanism).
void KafkaServer::start_schema_registry() {
  if (config_.schema_registry_listeners.empty()) return;
  // segment.bytes: the broker default (log.segment.bytes), as Confluent creates it.
  const auto segment = static_cast<int32_t>(std::min<int64_t>(config_.log_segment_bytes, INT32_MAX));
  coordinator::StateTopicConfig topic{schemareg::kSchemasTopic, 1, segment, "compact"};
  schemas_topic_ = std::make_unique<coordinator::StateTopic>(*logs_, topic);
  schemareg::SchemaRegistryAppConfig c;
  c.listeners = config_.schema_registry_listeners;
  c.listeners_explicit = config_.set_explicitly("schema.registry.listeners");
  c.max_message_bytes = config_.message_max_bytes;
  c.tls = https_.schema_registry;
  c.http.kafka_cluster_id = logs_->cluster_id();
  c.http.metrics = config_.metrics_requests ? &metrics_->registry() : nullptr;
  const auto& sasl = components_->sasl_mechanisms();
  if (auto listener = sasl::password_listener(config_, sasl); !listener.empty())
    c.http.authenticate = [&sasl, listener](const std::string& authorization) -> std::optional<std::string> {
      auto credentials = sasl::basic_credentials(authorization);
      if (!credentials) return std::nullopt;
      return sasl::password_login(sasl, listener, credentials->user, credentials->password);
    };
  if (const auto* authorizer = components_->services().authorizer)
    c.http.may_write = [authorizer](const std::string& user, const std::string& host) {
      const std::string principal = "User:" + user;
      return authorizer->authorize({principal, host}, acl::AclOperation::kAlter, acl::ResourceType::kCluster,
                                   acl::kClusterResourceName);
    };
  registry_ = std::make_unique<schemareg::SchemaRegistryApp>(*schemas_topic_, std::move(c));
  try {
    registry_->start();
  } catch (const std::exception& e) {
    registry_.reset();
    throw StartupError(fmt::format("schema registry: {}", e.what()));
  }
  metrics_->registry().add_collector([&service = registry_->service()](metrics::Exposition& out) {
    const auto n = service.counts();
    out.family("skiff_schema_registry_subjects", "gauge", "Schema Registry subjects with a live version.");
    out.sample("skiff_schema_registry_subjects", {}, {}, static_cast<double>(n.subjects));
    out.family("skiff_schema_registry_versions", "gauge", "Schema Registry live subject versions.");
    out.sample("skiff_schema_registry_versions", {}, {}, static_cast<double>(n.versions));
    out.family("skiff_schema_registry_schemas", "gauge", "Schema Registry schema ids in use, over every context.");
    out.sample("skiff_schema_registry_schemas", {}, {}, static_cast<double>(n.schemas));
  });
}

// The built-in REST proxy (apps/rest_proxy/), when rest.proxy.listeners
// names an endpoint. Its Kafka requests come from the listener the console
// uses; its logins are the registry's rule (HTTP Basic against the first
// SASL listener with a password mechanism, when there is one).
void KafkaServer::start_rest_proxy() {
  if (config_.rest_proxy_listeners.empty()) return;
  restproxy::RestProxyAppConfig c;
  c.listeners = config_.rest_proxy_listeners;
  c.listeners_explicit = config_.set_explicitly("rest.proxy.listeners");
  c.tls = https_.rest_proxy;
  const auto& r = config_.rest_proxy;
  c.limits.consumer_instance_timeout = std::chrono::milliseconds(r.consumer_instance_timeout_ms);
  c.limits.consumer_request_timeout = std::chrono::milliseconds(r.consumer_request_timeout_ms);
  c.limits.consumer_request_max_bytes = r.consumer_request_max_bytes;
  c.limits.max_consumer_instances_per_user = r.max_instances_per_user;
  c.limits.max_records_per_response = r.max_records_per_response;
  c.limits.max_request_bytes = r.max_request_bytes;
  c.worker_threads = r.worker_threads;
  c.cluster_id = logs_->cluster_id();
  c.metrics = config_.metrics_requests ? &metrics_->registry() : nullptr;
  const auto& sasl = components_->sasl_mechanisms();
  c.kafka_listener = sasl::password_listener(config_, sasl);
  if (!c.kafka_listener.empty()) {
    c.authenticate = [&sasl,
                      listener = c.kafka_listener](const std::string& authorization) -> std::optional<std::string> {
      auto credentials = sasl::basic_credentials(authorization);
      if (!credentials) return std::nullopt;
      return sasl::password_login(sasl, listener, credentials->user, credentials->password);
    };
  } else if (!config_.listeners.empty()) {
    c.kafka_listener = config_.listeners.front().name;
  }
  if (registry_) rest_formats_ = std::make_shared<RegistryFormats>(registry_->service());
  c.formats = rest_formats_;
  // rest_v2_ is made once the app is (it shares the app's RestKafka), before
  // the app starts: the workers see it set.
  c.v2 = [this](const restproxy::RestCall& call) -> std::optional<network::HttpResponse> {
    return rest_v2_ ? rest_v2_->dispatch(call) : std::nullopt;
  };
  const restproxy::RestLimits limits = c.limits;
  rest_proxy_ = std::make_unique<restproxy::RestProxyApp>(*apis_, std::move(c));
  rest_v2_ = std::make_unique<restproxy::V2Api>(rest_proxy_->kafka(), rest_formats_, limits);
  try {
    rest_proxy_->start();
  } catch (const std::exception& e) {
    rest_v2_.reset();
    rest_proxy_.reset();
    throw StartupError(fmt::format("REST proxy: {}", e.what()));
  }
}

std::string KafkaServer::rest_proxy_summary() const {
  if (!rest_proxy_ || rest_proxy_->endpoints().empty()) return "REST proxy off";
  return "REST proxy on " + fmt::format("{}", fmt::join(rest_proxy_->endpoints(), ", "));
}

std::string KafkaServer::schema_registry_summary() const {
  if (!registry_ || registry_->endpoints().empty()) return "schema registry off";
  return "schema registry on " + fmt::format("{}", fmt::join(registry_->endpoints(), ", "));
}

void KafkaServer::shutdown() {
  readiness_.set(Readiness::State::kShuttingDown);
  if (rest_proxy_) rest_proxy_->stop();                      // no new REST calls; running ones end
  rest_v2_.reset();                                          // v2 consumers commit and leave while KafkaApis answers
  if (registry_) registry_->stop();                          // no new schema requests; its writes are flushed
  published_metrics_.withdraw();                             // before the logs close; waits out a scrape in progress
  console_host_.withdraw();                                  // before KafkaApis goes; waits out a console call
  if (channel_) channel_->set_observer(nullptr);             // the Processors may outlive metrics_
  if (channel_) channel_->set_connection_listener(nullptr);  // ... and components_
  if (!started_) {
    rest_proxy_.reset();
    http_.reset();  // a failed startup may have started it
    return;
  }
  started_ = false;
  auto log = spdlog::default_logger();
  log->info("shutting down: no new connections; answering in-flight requests");
  socket_server_->stop_accepting();
  components_->complete_delayed();
  if (!socket_server_->drain(std::chrono::milliseconds(config_.shutdown_timeout_ms)))
    log->warn("shutdown: {} requests still unanswered after {} ms; closing their connections",
              socket_server_->in_flight(), config_.shutdown_timeout_ms);
  handlers_->shutdown();
  components_->shutdown();
  socket_server_->shutdown();
  handlers_.reset();
  apis_.reset();
  console_.reset();     // after apis_: a parked console request answers through its sender
  rest_proxy_.reset();  // likewise
  schema_catalog_.reset();
  registry_.reset();
  schemas_topic_.reset();
  components_.reset();
  tiered_.reset();    // the copies in flight end; before the logs close
  logs_->shutdown();  // flush, checkpoint, clean-shutdown marker
  logs_.reset();
  http_.reset();  // last: /readyz says "shutting down" until here
  log->info("shutdown complete");
}

std::string KafkaServer::listeners_summary() const {
  std::string out;
  const auto& bound = socket_server_->bound_listeners();
  for (size_t i = 0; i < bound.size(); ++i) {
    std::string addrs;
    for (const auto& a : bound[i].addresses) addrs += (addrs.empty() ? "" : ", ") + network::endpoint_text(a);
    const auto& adv = broker_info_.endpoints[i];
    out += fmt::format("{}{} on {} advertised as {}:{}", out.empty() ? "" : "; ", bound[i].requested.name, addrs,
                       adv.host, adv.port);
  }
  return out;
}

std::string KafkaServer::http_summary() const { return server::http_summary(http_.get()); }

}  // namespace skiff::server
