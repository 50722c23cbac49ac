#include "config/config_loader.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <string_view>

#include "config/config_def.h"
#include "config/jaas.h"
#include "config/kafka_env.h"
#include "config/kraft_keys.h"
#include "config/properties_file.h"
#include "config/string_util.h"
#include "config/tiered_storage_keys.h"

extern char** environ;

namespace skiff::config {
namespace {

struct RawValue {
  std::string value;
  ConfigSource source;
};

// Keys whose finer sibling (.ms) must win when both are set: applied first.
int apply_rank(const std::string& key) {
  if (key == "log.roll.hours" || key == "log.retention.hours") return 0;
  if (key == "log.retention.minutes") return 1;
  return 2;
}

bool is_known_key(const std::string& key) {
  return find_config_def(key) != nullptr || find_listener_config_def(key, nullptr) != nullptr;
}

// SKIFF_LISTENER_NAME_<NAME>_<KEY> -> listener.name.<name>.<key>, for the
// per-listener keys ('.' and '-' written '_'); empty when `var` is not of
// that form.
std::string listener_key_of_env(const std::string& var) {
  constexpr std::string_view kPrefix = "SKIFF_LISTENER_NAME_";
  if (!var.starts_with(kPrefix)) return "";
  std::string best;
  size_t best_len = 0;
  for (const auto* def : listener_config_defs()) {
    auto suffix = "_" + env_var_name(def->name).substr(6);  // without SKIFF_
    std::replace(suffix.begin(), suffix.end(), '-', '_');
    if (var.size() <= kPrefix.size() + suffix.size() || !var.ends_with(suffix)) continue;
    auto name = var.substr(kPrefix.size(), var.size() - kPrefix.size() - suffix.size());
    if (def->name.size() <= best_len) continue;  // the longest key wins (SSL_KEYSTORE_KEY vs ..._KEY)
    best = "listener.name." + to_lower(name) + "." + def->name;
    best_len = def->name.size();
  }
  return best;
}

std::string yaml_scalar_text(const std::string& key, const YAML::Node& node) {
  if (node.IsNull()) return "";
  if (node.IsScalar()) return node.Scalar();
  if (node.IsSequence()) {
    std::string joined;
    for (const auto& item : node) {
      if (!item.IsScalar())
        throw ConfigError(fmt::format("Invalid value for configuration '{}': list items must be plain values", key));
      joined += (joined.empty() ? "" : ",") + item.Scalar();
    }
    return joined;
  }
  throw ConfigError(
      fmt::format("Invalid value for configuration '{}': expected a value or a list, got a map (write keys flat, e.g. "
                  "'log.dirs: /data')",
                  key));
}

void read_yaml_file(const std::string& path, std::map<std::string, RawValue>& raw) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    throw ConfigError(fmt::format("Cannot read config file '{}'", path));
  } catch (const YAML::Exception& e) {
    throw ConfigError(fmt::format("Config file '{}' is not valid YAML: {}", path, e.what()));
  }
  if (root.IsNull()) return;  // an empty file is a valid, empty config
  if (!root.IsMap()) throw ConfigError(fmt::format("Config file '{}' must be a map of key: value", path));
  for (const auto& kv : root) {
    std::string key = kv.first.as<std::string>();
    if (!is_known_key(key)) throw ConfigError(fmt::format("Unknown configuration '{}' in config file '{}'", key, path));
    raw[key] = {yaml_scalar_text(key, kv.second), ConfigSource::kFile};
  }
}

// Kafka's server.properties (the apache/kafka image's /mnt/shared/config):
// keys Skiff does not know are warned about, as Kafka logs supplied configs
// it does not use; a known key's bad value is still an error.
void read_properties_file(const std::string& path, std::map<std::string, RawValue>& raw,
                          std::vector<std::string>& warnings) {
  std::ifstream in(path);
  if (!in) throw ConfigError(fmt::format("Cannot read config file '{}'", path));
  std::stringstream text;
  text << in.rdbuf();
  for (auto& [key, value] : parse_properties(text.str())) {
    if (is_known_key(key))
      raw[key] = {std::move(value), ConfigSource::kFile};
    else
      warnings.push_back(fmt::format("config file '{}': '{}' is not a configuration Skiff knows; ignored", path, key));
  }
}

void read_file(const std::string& path, std::map<std::string, RawValue>& raw, std::vector<std::string>& warnings) {
  if (path.ends_with(".properties"))
    read_properties_file(path, raw, warnings);
  else
    read_yaml_file(path, raw);
}

// KAFKA_* by the apache/kafka image's rules (config/kafka_env.h), below
// SKIFF_* when both name a key. Unknown keys are warned about, as Kafka logs
// supplied configs it does not use.
void read_kafka_variables(const ConfigSources& sources, std::map<std::string, RawValue>& raw,
                          std::vector<std::string>& warnings, std::string& cluster_id) {
  KafkaEnvironment kafka;
  try {
    kafka = read_kafka_environment(sources.environment, sources.kafka_secrets_dir);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(e.what());
  }
  for (auto& [key, value] : kafka.keys) {
    if (is_known_key(key))
      raw[key] = {std::move(value), ConfigSource::kEnvironment};
    else
      warnings.push_back(
          fmt::format("environment variable '{}' names '{}', which is not a configuration Skiff knows; "
                      "ignored",
                      kafka_env_var_name(key), key));
  }
  for (auto& w : kafka.warnings) warnings.push_back(std::move(w));
  cluster_id = kafka.cluster_id;
}

// Unknown SKIFF_* variables are warned about, not fatal: the prefix is shared
// with scripts and images that set variables of their own (as Kafka warns
// about supplied configs it does not know).
void read_environment(const std::map<std::string, std::string>& env, std::map<std::string, RawValue>& raw,
                      std::vector<std::string>& warnings) {
  std::set<std::string> known;
  for (const auto& def : config_defs()) {
    auto name = env_var_name(def.name);
    known.insert(name);
    if (auto it = env.find(name); it != env.end()) raw[def.name] = {it->second, ConfigSource::kEnvironment};
  }
  for (const auto& [name, value] : env) {
    if (auto key = listener_key_of_env(name); !key.empty()) {
      raw[key] = {value, ConfigSource::kEnvironment};
      continue;
    }
    if (name.rfind("SKIFF_", 0) == 0 && !known.count(name))
      warnings.push_back(fmt::format(
          "environment variable '{}' names no configuration key; ignored (keys are SKIFF_ followed by the key "
          "upper-cased with dots as underscores, e.g. SKIFF_ADVERTISED_LISTENERS)",
          name));
  }
}

void read_overrides(const std::vector<std::string>& overrides, std::map<std::string, RawValue>& raw) {
  for (const auto& o : overrides) {
    auto eq = o.find('=');
    if (eq == std::string::npos || eq == 0) throw ConfigError(fmt::format("--override '{}' must be key=value", o));
    std::string key(trim(std::string_view(o).substr(0, eq)));
    if (!is_known_key(key)) throw ConfigError(fmt::format("Unknown configuration '{}' in --override", key));
    raw[key] = {o.substr(eq + 1), ConfigSource::kCommandLine};
  }
}

void apply(BrokerConfig& cfg, const ConfigKeyDef& def, const RawValue& raw) {
  try {
    def.apply(cfg, raw.value);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(fmt::format("Invalid value '{}' for configuration '{}' (from {}): {}; allowed: {}",
                                  def.type == ConfigType::kPassword ? "[hidden]" : raw.value, def.name,
                                  to_string(raw.source), e.what(), def.allowed));
  }
  cfg.effective[def.name] = {raw.value, raw.source};
}

bool is_wildcard(const std::string& host) { return host.empty() || host == "0.0.0.0" || host == "::"; }

// Kafka's GroupCoordinatorConfig and ShareGroupConfig requirements on the
// group.share.* keys (each default within its min and max).
template <class Require>
void check_share_group_keys(const BrokerConfig& c, const Require& require) {
  constexpr std::string_view kGe = "greater than or equal to", kLe = "less than or equal to";
  struct Bounded {
    int32_t value, lo, hi;
    std::string_view name, lo_name, hi_name;
  };
  // GroupCoordinatorConfig: max >= min, value >= min, value <= max.
  const Bounded coordinator[] = {
      {c.group_share_heartbeat_interval_ms, c.group_share_min_heartbeat_interval_ms,
       c.group_share_max_heartbeat_interval_ms, "group.share.heartbeat.interval.ms",
       "group.share.min.heartbeat.interval.ms", "group.share.max.heartbeat.interval.ms"},
      {c.group_share_session_timeout_ms, c.group_share_min_session_timeout_ms, c.group_share_max_session_timeout_ms,
       "group.share.session.timeout.ms", "group.share.min.session.timeout.ms", "group.share.max.session.timeout.ms"},
      {c.group_share_assignment_interval_ms, c.group_share_min_assignment_interval_ms,
       c.group_share_max_assignment_interval_ms, "group.share.assignment.interval.ms",
       "group.share.min.assignment.interval.ms", "group.share.max.assignment.interval.ms"},
  };
  for (const auto& b : coordinator) {
    require(b.hi >= b.lo, b.hi_name, kGe, b.lo_name);
    require(b.value >= b.lo, b.name, kGe, b.lo_name);
    require(b.value <= b.hi, b.name, kLe, b.hi_name);
  }
  // ShareGroupConfig: max >= value and value >= min, in Kafka's words.
  const Bounded share[] = {
      {c.group_share_delivery_count_limit, c.group_share_min_delivery_count_limit,
       c.group_share_max_delivery_count_limit, "group.share.delivery.count.limit",
       "group.share.min.delivery.count.limit", "group.share.max.delivery.count.limit"},
      {c.group_share_partition_max_record_locks, c.group_share_min_partition_max_record_locks,
       c.group_share_max_partition_max_record_locks, "group.share.partition.max.record.locks",
       "group.share.min.partition.max.record.locks", "group.share.max.partition.max.record.locks"},
      {c.group_share_record_lock_duration_ms, c.group_share_min_record_lock_duration_ms,
       c.group_share_max_record_lock_duration_ms, "group.share.record.lock.duration.ms",
       "group.share.min.record.lock.duration.ms", "group.share.max.record.lock.duration.ms"},
  };
  for (const auto& b : share) {
    require(b.hi >= b.value, b.hi_name, kGe, b.name);
    require(b.value >= b.lo, b.name, kGe, b.lo_name);
  }
  require(c.group_share_heartbeat_interval_ms < c.group_share_session_timeout_ms, "group.share.heartbeat.interval.ms",
          "less than", "group.share.session.timeout.ms");
  require(c.group_share_max_share_sessions >= c.group_share_max_size, "group.share.max.share.sessions", kGe,
          "group.share.max.size");
}

// Kafka's GroupCoordinatorConfig.verifyStreamsGroupConfigs, in its order
// (group.streams.assignment.interval.ms is a dynamic key stored apart: only
// its min and max are checked here).
template <class Require>
void check_streams_group_keys(const BrokerConfig& c, const Require& require) {
  constexpr std::string_view kGe = "greater than or equal to", kLe = "less than or equal to";
  constexpr std::string_view kHb = "group.streams.heartbeat.interval.ms";
  constexpr std::string_view kMinHb = "group.streams.min.heartbeat.interval.ms";
  constexpr std::string_view kMaxHb = "group.streams.max.heartbeat.interval.ms";
  constexpr std::string_view kSt = "group.streams.session.timeout.ms";
  constexpr std::string_view kMinSt = "group.streams.min.session.timeout.ms";
  constexpr std::string_view kMaxSt = "group.streams.max.session.timeout.ms";
  require(c.group_streams_max_heartbeat_interval_ms >= c.group_streams_min_heartbeat_interval_ms, kMaxHb, kGe, kMinHb);
  require(c.group_streams_heartbeat_interval_ms >= c.group_streams_min_heartbeat_interval_ms, kHb, kGe, kMinHb);
  require(c.group_streams_heartbeat_interval_ms <= c.group_streams_max_heartbeat_interval_ms, kHb, kLe, kMaxHb);
  require(c.group_streams_max_session_timeout_ms >= c.group_streams_min_session_timeout_ms, kMaxSt, kGe, kMinSt);
  require(c.group_streams_session_timeout_ms >= c.group_streams_min_session_timeout_ms, kSt, kGe, kMinSt);
  require(c.group_streams_session_timeout_ms <= c.group_streams_max_session_timeout_ms, kSt, kLe, kMaxSt);
  require(c.group_streams_heartbeat_interval_ms < c.group_streams_session_timeout_ms, kHb, "less than", kSt);
  require(c.group_streams_max_assignment_interval_ms >= c.group_streams_min_assignment_interval_ms,
          "group.streams.max.assignment.interval.ms", kGe, "group.streams.min.assignment.interval.ms");
  require(c.group_streams_num_standby_replicas <= c.group_streams_max_standby_replicas,
          "group.streams.num.standby.replicas", kLe, "group.streams.max.standby.replicas");
  require(c.group_streams_task_offset_interval_ms >= c.group_streams_min_task_offset_interval_ms,
          "group.streams.task.offset.interval.ms", kGe, "group.streams.min.task.offset.interval.ms");
  require(c.group_streams_num_warmup_replicas <= c.group_streams_max_warmup_replicas,
          "group.streams.num.warmup.replicas", kLe, "group.streams.max.warmup.replicas");
}

// Kafka's GroupCoordinatorConfig requirements on the group.consumer.* keys.
void check_consumer_group_bounds(const BrokerConfig& c) {
  auto require = [](bool ok, std::string_view a, std::string_view relation, std::string_view b) {
    if (!ok) throw ConfigError(fmt::format("{} must be {} {}", a, relation, b));
  };
  constexpr std::string_view kHb = "group.consumer.heartbeat.interval.ms";
  constexpr std::string_view kMinHb = "group.consumer.min.heartbeat.interval.ms";
  constexpr std::string_view kMaxHb = "group.consumer.max.heartbeat.interval.ms";
  constexpr std::string_view kSt = "group.consumer.session.timeout.ms";
  constexpr std::string_view kMinSt = "group.consumer.min.session.timeout.ms";
  constexpr std::string_view kMaxSt = "group.consumer.max.session.timeout.ms";
  constexpr std::string_view kGe = "greater than or equal to", kLe = "less than or equal to";
  require(c.group_consumer_max_heartbeat_interval_ms >= c.group_consumer_min_heartbeat_interval_ms, kMaxHb, kGe,
          kMinHb);
  require(c.group_consumer_heartbeat_interval_ms >= c.group_consumer_min_heartbeat_interval_ms, kHb, kGe, kMinHb);
  require(c.group_consumer_heartbeat_interval_ms <= c.group_consumer_max_heartbeat_interval_ms, kHb, kLe, kMaxHb);
  require(c.group_consumer_max_session_timeout_ms >= c.group_consumer_min_session_timeout_ms, kMaxSt, kGe, kMinSt);
  require(c.group_consumer_session_timeout_ms >= c.group_consumer_min_session_timeout_ms, kSt, kGe, kMinSt);
  require(c.group_consumer_session_timeout_ms <= c.group_consumer_max_session_timeout_ms, kSt, kLe, kMaxSt);
  require(c.group_consumer_heartbeat_interval_ms < c.group_consumer_session_timeout_ms, kHb, "less than", kSt);
  require(c.group_consumer_max_assignment_interval_ms >= c.group_consumer_min_assignment_interval_ms,
          "group.consumer.max.assignment.interval.ms", kGe, "group.consumer.min.assignment.interval.ms");
  check_share_group_keys(c, require);
  check_streams_group_keys(c, require);
}

// One listener.name.<name>.<key> onto the settings it overrides.
void apply_listener_key(BrokerConfig& cfg, const ConfigKeyDef& def, const std::string& key, const RawValue& value,
                        SslSettings& ssl, SaslSettings& sasl) {
  BrokerConfig scratch;
  scratch.ssl = ssl;
  scratch.sasl = sasl;
  try {
    def.apply(scratch, value.value);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(fmt::format("Invalid value '{}' for configuration '{}' (from {}): {}; allowed: {}",
                                  def.type == ConfigType::kPassword ? "[hidden]" : value.value, key,
                                  to_string(value.source), e.what(), def.allowed));
  }
  for (auto& w : scratch.warnings) cfg.warnings.push_back(fmt::format("{}: {}", key, w));
  ssl = scratch.ssl;
  sasl = scratch.sasl;
}

// The HTTPS endpoints' settings an ssl.* key of pseudo-listener `name`
// overrides (kHttpTlsName, kSchemaRegistryTlsName); null for any other.
SslSettings* https_ssl(BrokerConfig& cfg, const ConfigKeyDef& def, const std::string& name) {
  if (!def.name.starts_with("ssl.")) return nullptr;
  const auto lower = to_lower(name);
  if (lower == kHttpTlsName) return &cfg.http_ssl;
  if (lower == kSchemaRegistryTlsName) return &cfg.schema_registry_ssl;
  if (lower == kRestProxyTlsName) return &cfg.rest_proxy_ssl;
  return nullptr;
}

// listener.name.<name>.<key>: each listener starts from the broker-wide
// ssl.* and SASL values and takes its own keys over them, key by key (Kafka's
// valuesWithPrefixOverride). Names match the listeners' case-insensitively;
// the ssl.* keys also take the HTTPS endpoints' names (https_ssl).
void apply_listener_keys(BrokerConfig& cfg, const std::map<std::string, RawValue>& raw) {
  for (const auto& l : cfg.listeners) {
    cfg.listener_ssl[l.name] = cfg.ssl;
    cfg.listener_sasl[l.name] = cfg.sasl;
  }
  cfg.http_ssl = cfg.schema_registry_ssl = cfg.rest_proxy_ssl = cfg.ssl;
  for (const auto& [key, value] : raw) {
    std::string listener;
    const auto* def = find_listener_config_def(key, &listener);
    if (!def) continue;
    auto match = std::find_if(cfg.listeners.begin(), cfg.listeners.end(),
                              [&](const Listener& l) { return to_lower(l.name) == to_lower(listener); });
    SslSettings* https = https_ssl(cfg, *def, listener);
    if (match == cfg.listeners.end() && !https)
      throw ConfigError(fmt::format(
          "Configuration '{}' (from {}) names listener '{}', which is not in 'listeners' (ssl.* keys may also name "
          "'{}' for http.listeners, '{}' for schema.registry.listeners and '{}' for rest.proxy.listeners)",
          key, to_string(value.source), listener, kHttpTlsName, kSchemaRegistryTlsName, kRestProxyTlsName));
    if (match != cfg.listeners.end())
      apply_listener_key(cfg, *def, key, value, cfg.listener_ssl[match->name], cfg.listener_sasl[match->name]);
    if (https) {
      SaslSettings unused = cfg.sasl;
      apply_listener_key(cfg, *def, key, value, *https, unused);
    }
    cfg.effective[key] = {value.value, value.source};
  }
}

// What TLS settings need before any file is opened (the files themselves
// are read when the TLS context is built); `fail` throws saying what.
template <class Fail>
void check_ssl_settings(const SslSettings& s, const Fail& fail) {
  bool inline_key = !s.keystore_key.empty() || !s.keystore_certificate_chain.empty();
  if (s.keystore_location.empty() && !inline_key)
    fail(
        "no key material: set ssl.keystore.location (a PEM file with the private key and certificate chain) or "
        "ssl.keystore.key and ssl.keystore.certificate.chain");
  if (!s.keystore_location.empty() && inline_key)
    fail("set either ssl.keystore.location or ssl.keystore.key/ssl.keystore.certificate.chain, not both");
  if (inline_key && (s.keystore_key.empty() || s.keystore_certificate_chain.empty()))
    fail("ssl.keystore.key and ssl.keystore.certificate.chain go together");
  if (!s.keystore_password.empty())
    fail("SSL key store password cannot be specified with PEM format, only key password may be specified");
  if (!s.truststore_password.empty()) fail("SSL trust store password cannot be specified with PEM format");
  if (!s.truststore_location.empty() && !s.truststore_certificates.empty())
    fail("set either ssl.truststore.location or ssl.truststore.certificates, not both");
  if (s.client_auth != "none" && s.truststore_location.empty() && s.truststore_certificates.empty())
    fail(
        fmt::format("ssl.client.auth={} needs the CAs to check client certificates against: set "
                    "ssl.truststore.location or ssl.truststore.certificates",
                    s.client_auth));
}

void check_ssl_listeners(const BrokerConfig& cfg) {
  for (const auto& l : cfg.listeners) {
    if (!cfg.uses_tls(l.name)) continue;
    check_ssl_settings(cfg.ssl_for(l.name), [&](std::string_view what) {
      throw ConfigError(fmt::format("listener {} ({}): {}", l.name, cfg.security_protocol(l.name), what));
    });
  }
}

// An https:// endpoint needs what an SSL listener needs, from the ssl.* keys
// or their listener.name.<http|schema_registry|rest_proxy>.ssl.* form.
void check_https_endpoints(const BrokerConfig& cfg) {
  struct Kind {
    const std::vector<Listener>& endpoints;
    const SslSettings& ssl;
    std::string_view key, name;
  };
  const Kind kinds[] = {
      {cfg.http_listeners, cfg.http_ssl, "http.listeners", kHttpTlsName},
      {cfg.schema_registry_listeners, cfg.schema_registry_ssl, "schema.registry.listeners", kSchemaRegistryTlsName},
      {cfg.rest_proxy_listeners, cfg.rest_proxy_ssl, "rest.proxy.listeners", kRestProxyTlsName}};
  for (const auto& k : kinds) {
    auto https = std::find_if(k.endpoints.begin(), k.endpoints.end(), is_https);
    if (https == k.endpoints.end()) continue;
    check_ssl_settings(k.ssl, [&](std::string_view what) {
      throw ConfigError(fmt::format("{} {}: {} (for these endpoints alone: listener.name.{}.ssl.*)", k.key,
                                    https->to_string(), what, k.name));
    });
  }
}

// The -D form of Kafka's JVM system property in KAFKA_OPTS, as Kafka's
// launch scripts pass it: the JWKS URLs OAUTHBEARER may fetch.
void read_kafka_opts(const ConfigSources& sources, std::map<std::string, RawValue>& raw) {
  constexpr std::string_view kProperty = "-Dorg.apache.kafka.sasl.oauthbearer.allowed.urls=";
  auto it = sources.environment.find("KAFKA_OPTS");
  if (it == sources.environment.end() || raw.count("skiff.sasl.oauthbearer.allowed.urls")) return;
  std::istringstream words(it->second);
  for (std::string w; words >> w;) {
    if (!w.starts_with(kProperty)) continue;
    auto value = w.substr(kProperty.size());
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front())
      value = value.substr(1, value.size() - 2);
    raw["skiff.sasl.oauthbearer.allowed.urls"] = {value, ConfigSource::kEnvironment};
  }
}

// The JAAS options Kafka's JaasOptionsUtils gives the JWKS fetch's TLS.
void jwks_tls_from_jaas(const std::string& jaas, OAuthBearerJwtOptions& o) {
  const auto options = parse_jaas_config(jaas).options;
  auto option = [&](const char* name) {
    auto it = options.find(name);
    return it == options.end() ? std::string() : std::string(trim(it->second));
  };
  o.truststore_location = option("ssl.truststore.location");
  o.truststore_certificates = option("ssl.truststore.certificates");
  if (options.count("ssl.endpoint.identification.algorithm"))
    o.verify_hostname = !option("ssl.endpoint.identification.algorithm").empty();
  if (auto type = to_lower(option("ssl.truststore.type")); !type.empty() && type != "pem")
    throw std::invalid_argument("ssl.truststore.type " + type + ": Skiff reads PEM trust stores only");
}

// Kafka's checks when OAuthBearerValidatorCallbackHandler is configured
// (BrokerJwtValidator, VerificationKeyResolverFactory, ConfigurationUtils).
void check_jwt_validator(const BrokerConfig& cfg, const std::string& listener, const OAuthBearerJwtOptions& o) {
  auto fail = [&](const std::string& what) { throw ConfigError(fmt::format("listener {}: {}", listener, what)); };
  const std::string kDefault = "org.apache.kafka.common.security.oauthbearer.DefaultJwtValidator";
  const std::string kBroker = "org.apache.kafka.common.security.oauthbearer.BrokerJwtValidator";
  if (o.jwt_validator_class != kDefault && o.jwt_validator_class != kBroker)
    fail(fmt::format("sasl.oauthbearer.jwt.validator.class {}: Skiff implements {} and {} only", o.jwt_validator_class,
                     kDefault, kBroker));
  constexpr auto kUrl = "sasl.oauthbearer.jwks.endpoint.url";
  if (o.jwks_endpoint_url.empty() && o.jwt_validator_class == kDefault)
    fail(
        fmt::format("The OAuth validator for the broker requires \"{0}\" to be configured so that JWT signatures "
                    "can be verified, but it was not set. Set \"{0}\" to the OAuth/OIDC provider's JWKS endpoint "
                    "URL for this listener, or configure a signature-verifying \"{1}\".",
                    kUrl, "sasl.oauthbearer.jwt.validator.class"));
  if (o.expected_audience.empty() && !o.allow_unverified_audience)
    fail(
        fmt::format("The OAuth validator for the broker requires \"{0}\" to be configured so that the token's "
                    "audience (\"aud\") claim can be verified, but it was not set. Set \"{0}\" to the audience(s) "
                    "that identify this cluster, or set \"{1}\" to true to accept tokens regardless of their "
                    "audience.",
                    "sasl.oauthbearer.expected.audience", "sasl.oauthbearer.allow.unverified.audience"));
  if (o.expected_issuer.empty() && !o.allow_unverified_issuer)
    fail(
        fmt::format("The OAuth validator for the broker requires \"{0}\" to be configured so that the token's "
                    "issuer (\"iss\") claim can be verified, but it was not set. Set \"{0}\" to the issuer URL of "
                    "the OAuth/OIDC provider that signs the tokens, or set \"{1}\" to true to accept tokens "
                    "regardless of their issuer.",
                    "sasl.oauthbearer.expected.issuer", "sasl.oauthbearer.allow.unverified.issuer"));
  if (o.jwks_endpoint_url.empty()) fail(fmt::format("The OAuth configuration option {} value is required", kUrl));
  const auto& url = o.jwks_endpoint_url;
  const auto colon = url.find(':');
  const auto scheme = colon == std::string::npos ? std::string() : to_lower(url.substr(0, colon));
  if (scheme != "http" && scheme != "https" && scheme != "file")
    fail(
        fmt::format("The OAuth configuration option {} contains a URL ({}) that contains an invalid protocol ({}); "
                    "only \"http\", \"https\", and \"file\" protocol are supported",
                    kUrl, url, scheme));
  const auto& allowed = cfg.oauthbearer_allowed_urls;
  if (std::find(allowed.begin(), allowed.end(), url) == allowed.end())
    fail(
        fmt::format("Invalid value {} for configuration {}: The URL cannot be accessed due to restrictions. Update "
                    "the system property 'org.apache.kafka.sasl.oauthbearer.allowed.urls' to allow the URL to be "
                    "accessed (in Skiff: skiff.sasl.oauthbearer.allowed.urls, or that property in KAFKA_OPTS)",
                    url, kUrl));
  if (scheme != "file") {
    if (o.jwks_refresh_ms <= 0)
      fail("JWKS validation key refresh configuration value retryWaitMs value must be positive");
    if (o.jwks_retry_backoff_ms < 0 || o.jwks_retry_backoff_max_ms < o.jwks_retry_backoff_ms)
      fail(
          fmt::format("sasl.oauthbearer.jwks.endpoint.retry.backoff.ms ({}) must be non-negative and at most "
                      "sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms ({})",
                      o.jwks_retry_backoff_ms, o.jwks_retry_backoff_max_ms));
  }
}

// Each listener's mechanism-prefixed sasl.oauthbearer.* keys over its others.
void apply_oauthbearer_prefixed(SaslSettings& s) {
  for (const auto& [name, value] : s.oauthbearer_prefixed) {
    const auto* def = find_config_def(name);
    if (!def) continue;
    BrokerConfig scratch;
    scratch.sasl = s;
    def->apply(scratch, value);
    s.oauthbearer_jwt = scratch.sasl.oauthbearer_jwt;
  }
}

void check_oauthbearer(BrokerConfig& cfg, const std::string& listener, SaslSettings& s) {
  const auto& m = s.enabled_mechanisms;
  if (std::find(m.begin(), m.end(), "OAUTHBEARER") == m.end()) return;
  apply_oauthbearer_prefixed(s);
  const auto& handler = s.oauthbearer_callback_handler;
  auto jaas = s.jaas_config.find("OAUTHBEARER");
  const auto where = fmt::format("listener.name.{}.oauthbearer.sasl.jaas.config", to_lower(listener));
  if (handler == kOAuthBearerValidatorCallbackHandler) {
    try {
      if (jaas != s.jaas_config.end()) jwks_tls_from_jaas(jaas->second, s.oauthbearer_jwt);
    } catch (const std::invalid_argument& e) {
      throw ConfigError(fmt::format("{}: {}", where, e.what()));
    }
    check_jwt_validator(cfg, listener, s.oauthbearer_jwt);
    return;
  }
  if (!handler.empty() && handler != kOAuthBearerUnsecuredValidatorCallbackHandler)
    throw ConfigError(fmt::format(
        "listener.name.{}.oauthbearer.sasl.server.callback.handler.class {}: Skiff implements {} and {} only",
        to_lower(listener), handler, kOAuthBearerValidatorCallbackHandler,
        kOAuthBearerUnsecuredValidatorCallbackHandler));
  cfg.warnings.push_back(fmt::format(
      "listener {}: OAUTHBEARER takes unsecured tokens (\"alg\":\"none\"): any client can claim any principal; "
      "for development only (set listener.name.{}.oauthbearer.sasl.server.callback.handler.class={} to verify "
      "signed tokens)",
      listener, to_lower(listener), kOAuthBearerValidatorCallbackHandler));
  if (jaas == s.jaas_config.end()) return;
  try {
    s.oauthbearer = oauthbearer_options_from_jaas(jaas->second);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(fmt::format("{}: {}", where, e.what()));
  }
}

// A SASL listener offers only mechanisms Skiff implements, at least one,
// PLAIN only with users from its JAAS entry (as Kafka needs a JAAS entry per
// mechanism), and OAUTHBEARER with the validator options of its JAAS entry,
// if any, and a warning: its tokens are unsecured.
void check_sasl_listeners(BrokerConfig& cfg) {
  for (const auto& l : cfg.listeners) {
    if (!cfg.uses_sasl(l.name)) continue;
    auto& s = cfg.listener_sasl[l.name];
    auto fail = [&](const std::string& what) {
      throw ConfigError(fmt::format("listener {} ({}): {}", l.name, cfg.security_protocol(l.name), what));
    };
    std::vector<std::string> served;
    for (const auto& m : s.enabled_mechanisms) {
      const auto& known = supported_sasl_mechanisms();
      if (std::find(known.begin(), known.end(), m) != known.end())
        served.push_back(m);
      else
        cfg.warnings.push_back(
            fmt::format("listener {}: SASL mechanism {} is not implemented; not offered", l.name, m));
    }
    if (served.empty())
      fail(fmt::format(
          "sasl.enabled.mechanisms offers none of {} (Kafka's default is GSSAPI, which Skiff does not implement): "
          "set e.g. sasl.enabled.mechanisms=SCRAM-SHA-512,PLAIN",
          fmt::join(supported_sasl_mechanisms(), ", ")));
    s.enabled_mechanisms = std::move(served);
    bool plain =
        std::find(s.enabled_mechanisms.begin(), s.enabled_mechanisms.end(), "PLAIN") != s.enabled_mechanisms.end();
    if (plain && !s.jaas_config.count("PLAIN"))
      fail(
          fmt::format("PLAIN is enabled but listener.name.{}.plain.sasl.jaas.config is not set (its "
                      "user_<name>=\"<password>\" options are PLAIN's users)",
                      to_lower(l.name)));
    check_oauthbearer(cfg, l.name, s);
  }
}

void check_cross_key_rules(BrokerConfig& cfg) {
  check_consumer_group_bounds(cfg);
  check_single_node_kraft(cfg);
  check_ssl_listeners(cfg);
  check_https_endpoints(cfg);
  check_sasl_listeners(cfg);
  for (const auto& l : cfg.listeners) {
    if (!cfg.listener_security_protocol_map.count(l.name))
      throw ConfigError(
          fmt::format("Invalid value '{}' for configuration 'listeners': listener name '{}' is not in "
                      "listener.security.protocol.map (add {}:PLAINTEXT)",
                      cfg.effective.at("listeners").value, l.name, l.name));
  }
  for (const auto& a : cfg.advertised_listeners) {
    auto match = std::find_if(cfg.listeners.begin(), cfg.listeners.end(), [&](auto& l) { return l.name == a.name; });
    if (match == cfg.listeners.end())
      throw ConfigError(fmt::format(
          "Invalid value '{}' for configuration 'advertised.listeners': '{}' names no listener in 'listeners'",
          cfg.effective.at("advertised.listeners").value, a.name));
    if (is_wildcard(a.host))
      throw ConfigError(fmt::format(
          "Invalid value '{}' for configuration 'advertised.listeners': clients cannot connect to '{}'; advertise "
          "a host name or address they can reach",
          cfg.effective.at("advertised.listeners").value, a.to_string()));
  }
}

}  // namespace

BrokerConfig load_config(const ConfigSources& sources) {
  std::map<std::string, RawValue> raw;
  std::vector<std::string> warnings;
  std::string cluster_id;
  if (sources.file) read_file(*sources.file, raw, warnings);
  read_kafka_variables(sources, raw, warnings, cluster_id);
  read_kafka_opts(sources, raw);
  read_environment(sources.environment, raw, warnings);
  read_overrides(sources.overrides, raw);

  BrokerConfig cfg;
  cfg.warnings = std::move(warnings);
  cfg.kraft.cluster_id = cluster_id;
  for (const auto& def : config_defs()) apply(cfg, def, {def.default_value, ConfigSource::kDefault});

  std::vector<const ConfigKeyDef*> order;
  for (const auto& def : config_defs())
    if (raw.count(def.name)) order.push_back(&def);
  std::stable_sort(order.begin(), order.end(),
                   [](auto* a, auto* b) { return apply_rank(a->name) < apply_rank(b->name); });
  for (auto* def : order) apply(cfg, *def, raw.at(def->name));

  apply_listener_keys(cfg, raw);
  check_cross_key_rules(cfg);
  check_tiered_storage(cfg, sources.environment);
  return cfg;
}

std::map<std::string, std::string> process_environment() {
  std::map<std::string, std::string> env;
  for (char** e = environ; e && *e; ++e) {
    std::string_view kv(*e);
    auto eq = kv.find('=');
    if (eq != std::string_view::npos) env.emplace(kv.substr(0, eq), kv.substr(eq + 1));
  }
  return env;
}

std::string describe_config(const BrokerConfig& config) {
  std::string out;
  size_t width = 0;
  for (const auto& [key, e] : config.effective) width = std::max(width, key.size());
  for (const auto& [key, e] : config.effective) {
    const auto* def = find_config_def(key);
    if (!def) def = find_listener_config_def(key, nullptr);
    bool secret = def && def->type == ConfigType::kPassword && !e.value.empty();
    out += fmt::format("{:<{}} = {:<40} ({})\n", key, width, secret ? "[hidden]" : e.value, to_string(e.source));
  }
  return out;
}

}  // namespace skiff::config
