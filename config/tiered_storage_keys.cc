// Tiered storage's rows of the one key table: Kafka 4.4's
// RemoteLogManagerConfig keys (names, types, defaults and ConfigDef bounds as
// recorded from Kafka's jars, Kafka's messages), Aiven's
// tiered-storage-for-apache-kafka keys under rsm.config. (its
// RemoteStorageManagerConfig and S3StorageConfig), Kafka's
// TopicBasedRemoteLogMetadataManagerConfig keys under rlmm.config., and
// Skiff's own CA file key. The keys Kafka updates dynamically stay dynamic
// (stored, no live effect yet). Keys of features Skiff does not have are
// accepted and documented as such, or refused when they would silently
// weaken what the user asked for (encryption).
#include "config/tiered_storage_keys.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <stdexcept>

#include "config/config_def.h"
#include "config/config_loader.h"
#include "config/string_util.h"

namespace skiff::config {
namespace {

using TS = TieredStorageSettings;

std::string rsm(std::string_view key) { return std::string(kDefaultRsmPrefix) + std::string(key); }
std::string rlmm(std::string_view key) { return std::string(kDefaultRlmmPrefix) + std::string(key); }

std::string range_allowed(int64_t lo, int64_t hi, int64_t type_hi) {
  return hi == type_hi ? fmt::format("[{},...]", lo) : fmt::format("[{},...,{}]", lo, hi);
}

// A Kafka INT/LONG/SHORT key (by T) in [lo, hi], stored in a TieredStorageSettings member.
template <typename T>
ConfigKeyDef number(std::string name, int64_t def, int64_t lo, std::string doc, T TS::*member,
                    int64_t hi = std::numeric_limits<T>::max()) {
  constexpr bool kLong = sizeof(T) == 8;
  constexpr const char* kType = sizeof(T) == 8 ? "LONG" : sizeof(T) == 4 ? "INT" : "SHORT";
  constexpr int64_t kTypeLo = std::numeric_limits<T>::min(), kTypeHi = std::numeric_limits<T>::max();
  return ConfigKeyDef{std::move(name),
                      kLong ? ConfigType::kLong : ConfigType::kInt,
                      std::to_string(def),
                      std::move(doc),
                      [=](BrokerConfig& c, const std::string& v) {
                        c.tiered_storage.*member = static_cast<T>(kafka_integer(v, kType, kTypeLo, kTypeHi, lo, hi));
                      },
                      range_allowed(lo, hi, kTypeHi)};
}

// Kafka's BOOLEAN: true or false in any case.
bool kafka_bool(const std::string& v) {
  const auto s = to_lower(trim(v));
  if (s != "true" && s != "false") throw std::invalid_argument("Expected value to be either true or false");
  return s == "true";
}

ConfigKeyDef boolean(std::string name, bool def, std::string doc, std::function<void(TS&, bool)> store) {
  return ConfigKeyDef{
      std::move(name),
      ConfigType::kBool,
      def ? "true" : "false",
      std::move(doc),
      [store = std::move(store)](BrokerConfig& c, const std::string& v) { store(c.tiered_storage, kafka_bool(v)); },
      "true or false"};
}

// A STRING/CLASS/PASSWORD key, stored trimmed ("" when unset).
ConfigKeyDef text(std::string name, std::string def, std::string doc, std::function<void(TS&, std::string)> store,
                  ConfigType type = ConfigType::kString) {
  return ConfigKeyDef{std::move(name),
                      type,
                      std::move(def),
                      std::move(doc),
                      [store = std::move(store)](BrokerConfig& c, const std::string& v) {
                        store(c.tiered_storage, std::string(trim(v)));
                      },
                      type == ConfigType::kPassword ? "a secret" : "a string"};
}

// Kafka's dynamic keys: AlterConfigs may set them; stored and described.
ConfigKeyDef dynamic(ConfigKeyDef d) {
  d.dynamic = true;
  d.no_effect = true;
  d.doc += " Dynamic as in Kafka: stored and described; the remote log manager reads it at startup.";
  return d;
}

// Kafka's dynamic keys that take effect at once: the remote reads look them
// up in the live config on every fetch (server/remote_reads_port.h).
ConfigKeyDef live(ConfigKeyDef d) {
  d.dynamic = true;
  d.doc += " Dynamic: a change takes effect at once.";
  return d;
}

// Accepted and checked as Kafka checks it, with no use in Skiff (`why`).
ConfigKeyDef unused(ConfigKeyDef d, std::string_view why) {
  d.doc += fmt::format(" Accepted; {}.", why);
  return d;
}

// A key Skiff does not use, checked by `check` only.
ConfigKeyDef checked_only(std::string name, ConfigType type, std::string def, std::string doc,
                          std::function<void(const std::string&)> check, std::string allowed, std::string_view why) {
  return unused(
      ConfigKeyDef{std::move(name), type, std::move(def), std::move(doc),
                   [check = std::move(check)](BrokerConfig&, const std::string& v) { check(v); }, std::move(allowed)},
      why);
}

ConfigKeyDef unused_long(std::string name, std::string def, int64_t lo, std::string doc, std::string_view why) {
  return checked_only(
      std::move(name), ConfigType::kLong, std::move(def), std::move(doc),
      [lo](const std::string& v) {
        if (!trim(v).empty()) kafka_integer(v, "LONG", INT64_MIN, INT64_MAX, lo, INT64_MAX);  // "": null
      },
      range_allowed(lo, INT64_MAX, INT64_MAX), why);
}

ConfigKeyDef unused_int(std::string name, std::string def, int64_t lo, std::string doc, std::string_view why) {
  return checked_only(
      std::move(name), ConfigType::kInt, std::move(def), std::move(doc),
      [lo](const std::string& v) { kafka_integer(v, "INT", INT32_MIN, INT32_MAX, lo, INT32_MAX); },
      range_allowed(lo, INT32_MAX, INT32_MAX), why);
}

ConfigKeyDef unused_text(std::string name, ConfigType type, std::string def, std::string doc, std::string_view why) {
  return checked_only(
      std::move(name), type, std::move(def), std::move(doc), [](const std::string&) {}, "any", why);
}

// A STRING one of `choices` (case-sensitive, as Kafka's ValidString).
ConfigKeyDef choice(std::string name, std::string def, const std::vector<std::string>& choices, std::string doc,
                    const std::function<void(TS&, std::string)>& store) {
  std::string listed;
  for (const auto& c : choices) listed += (listed.empty() ? "" : ", ") + c;
  return ConfigKeyDef{std::move(name),
                      ConfigType::kString,
                      std::move(def),
                      std::move(doc),
                      [=](BrokerConfig& c, const std::string& v) {
                        const std::string s(trim(v));
                        if (std::find(choices.begin(), choices.end(), s) == choices.end())
                          throw std::invalid_argument(fmt::format("String must be one of: {}", listed));
                        store(c.tiered_storage, s);
                      },
                      "[" + listed + "]"};
}

// A nullable LONG/INT in [lo, hi]: "" is null.
ConfigKeyDef optional_number(std::string name, int64_t lo, int64_t hi, std::string doc,
                             const std::function<void(TS&, std::optional<int64_t>)>& store) {
  const bool is_int = hi <= INT32_MAX;
  return ConfigKeyDef{std::move(name),
                      is_int ? ConfigType::kInt : ConfigType::kLong,
                      "",
                      std::move(doc),
                      [=](BrokerConfig& c, const std::string& v) {
                        if (trim(v).empty()) return store(c.tiered_storage, std::nullopt);
                        store(c.tiered_storage,
                              kafka_integer(v, is_int ? "INT" : "LONG", is_int ? INT32_MIN : INT64_MIN,
                                            is_int ? INT32_MAX : INT64_MAX, lo, hi));
                      },
                      "null or " + range_allowed(lo, hi, is_int ? INT32_MAX : INT64_MAX)};
}

void add_system_keys(std::vector<ConfigKeyDef>& d) {
  d.push_back(boolean("remote.log.storage.system.enable", false,
                      "Whether to enable tiered storage functionality in a broker or not.",
                      [](TS& t, bool v) { t.enabled = v; }));
  d.push_back(text("remote.log.storage.manager.class.name", "",
                   "The remote storage manager: io.aiven.kafka.tieredstorage.RemoteStorageManager selects Skiff's "
                   "built-in S3 store, configured with Aiven's keys under remote.log.storage.manager.impl.prefix.",
                   [](TS& t, std::string v) { t.storage_manager_class = std::move(v); }));
  d.push_back(text("remote.log.storage.manager.impl.prefix", std::string(kDefaultRsmPrefix),
                   "Prefix of the remote storage manager's keys (Skiff reads them under rsm.config.).",
                   [](TS& t, std::string v) { t.storage_manager_prefix = std::move(v); }));
  d.push_back(text("remote.log.metadata.manager.class.name", std::string(kTopicBasedRemoteLogMetadataManager),
                   "The remote log metadata manager: Kafka's TopicBasedRemoteLogMetadataManager (Skiff's own, "
                   "kept in the __remote_log_metadata topic).",
                   [](TS& t, std::string v) { t.metadata_manager_class = std::move(v); }));
  d.push_back(text("remote.log.metadata.manager.impl.prefix", std::string(kDefaultRlmmPrefix),
                   "Prefix of the remote log metadata manager's keys (Skiff reads them under rlmm.config.).",
                   [](TS& t, std::string v) { t.metadata_manager_prefix = std::move(v); }));
  constexpr std::string_view kNoClasses = "Skiff loads no Java classes";
  d.push_back(unused_text("remote.log.storage.manager.class.path", ConfigType::kString, "",
                          "Class path of the RemoteStorageManager implementation.", kNoClasses));
  d.push_back(unused_text("remote.log.metadata.manager.class.path", ConfigType::kString, "",
                          "Class path of the RemoteLogMetadataManager implementation.", kNoClasses));
  d.push_back(unused_text("remote.log.metadata.manager.listener.name", ConfigType::kString, "",
                          "Listener the RemoteLogMetadataManager's clients connect to.",
                          "Skiff's metadata manager writes its topic in process, through no listener"));
}

void add_manager_keys(std::vector<ConfigKeyDef>& d) {
  d.push_back(number("remote.log.manager.task.interval.ms", 30000, 1,
                     "Interval at which the remote log manager copies segments and cleans up remote ones.",
                     &TS::task_interval_ms));
  d.push_back(number("remote.log.manager.task.retry.backoff.ms", 500, 1,
                     "Initial wait before a failed remote log manager task is retried.", &TS::task_retry_backoff_ms));
  d.push_back(number("remote.log.manager.task.retry.backoff.max.ms", 30000, 1,
                     "Longest wait between retries of a failed remote log manager task.",
                     &TS::task_retry_backoff_max_ms));
  d.push_back(ConfigKeyDef{
      "remote.log.manager.task.retry.jitter", ConfigType::kDouble, "0.2", "Jitter factor of the retry backoff.",
      [](BrokerConfig& c, const std::string& v) { c.tiered_storage.task_retry_jitter = kafka_double(v, 0, 0.5); },
      "[0,...,0.5]"});
  d.push_back(number("remote.log.reader.max.pending.tasks", 100, 1,
                     "Most remote reads queued; beyond, fetches of remote data get an error.",
                     &TS::reader_max_pending_tasks));
  d.push_back(number("remote.log.index.file.cache.ttl.ms", 900000, -1,
                     "How long a fetched remote index stays cached after its last use (-1: size bound only).",
                     &TS::index_file_cache_ttl_ms));
  constexpr std::string_view kQuota = "Skiff's quotas count over their own window";
  d.push_back(unused_int("remote.log.manager.copy.quota.window.num", "11", 1, "Samples kept for the remote copy quota.",
                         kQuota));
  d.push_back(unused_int("remote.log.manager.copy.quota.window.size.seconds", "1", 1,
                         "Time span of a remote copy quota sample.", kQuota));
  d.push_back(unused_int("remote.log.manager.fetch.quota.window.num", "11", 1,
                         "Samples kept for the remote fetch quota.", kQuota));
  d.push_back(unused_int("remote.log.manager.fetch.quota.window.size.seconds", "1", 1,
                         "Time span of a remote fetch quota sample.", kQuota));
  d.push_back(unused_int("remote.log.manager.thread.pool.size", "2", 1,
                         "Deprecated since Kafka 4.2 (remote.log.manager.follower.thread.pool.size).",
                         "one node has no follower tasks"));
  d.push_back(unused_int("remote.log.metadata.custom.metadata.max.bytes", "128", 0,
                         "Largest custom metadata a storage plugin may attach to a segment.",
                         "Skiff's store attaches none"));
}

// Kafka's dynamic tiered storage keys (DynamicRemoteLogConfig and the log keys).
void add_dynamic_keys(std::vector<ConfigKeyDef>& d) {
  d.push_back(dynamic(number("log.local.retention.ms", -2, -2,
                             "Broker default of local.retention.ms: how long local segments are kept once uploaded "
                             "(-2: log.retention.ms).",
                             &TS::log_local_retention_ms)));
  d.push_back(dynamic(number("log.local.retention.bytes", -2, -2,
                             "Broker default of local.retention.bytes: local size per partition once uploaded "
                             "(-2: log.retention.bytes).",
                             &TS::log_local_retention_bytes)));
  d.push_back(dynamic(
      number("log.remote.copy.lag.ms", 0, -1, "Broker default of remote.copy.lag.ms.", &TS::log_remote_copy_lag_ms)));
  d.push_back(dynamic(number("log.remote.copy.lag.bytes", -1, -1, "Broker default of remote.copy.lag.bytes.",
                             &TS::log_remote_copy_lag_bytes)));
  d.push_back(live(number("remote.fetch.max.wait.ms", 500, 1,
                          "Longest a fetch of remote data waits before it is answered.", &TS::fetch_max_wait_ms)));
  d.push_back(live(number("remote.list.offsets.request.timeout.ms", 30000, 1,
                          "Longest a ListOffsets that reads remote data waits.", &TS::list_offsets_timeout_ms)));
  d.push_back(dynamic(number("remote.log.index.file.cache.total.size.bytes", 1073741824, 1,
                             "Local space for the indexes fetched from remote storage.",
                             &TS::index_file_cache_total_size_bytes)));
  d.push_back(dynamic(number("remote.log.manager.copier.thread.pool.size", 10, 1,
                             "Threads that copy segments to remote storage.", &TS::copier_threads)));
  d.push_back(dynamic(number("remote.log.manager.expiration.thread.pool.size", 10, 1,
                             "Threads that delete expired remote segments.", &TS::expiration_threads)));
  d.push_back(dynamic(
      number("remote.log.reader.threads", 10, 1, "Threads that read remote data for fetches.", &TS::reader_threads)));
  d.push_back(dynamic(number("remote.log.manager.copy.max.bytes.per.second", TS::kUnlimited, 1,
                             "Most bytes copied to remote storage per second, all partitions together.",
                             &TS::copy_max_bytes_per_second)));
  d.push_back(live(number("remote.log.manager.fetch.max.bytes.per.second", TS::kUnlimited, 1,
                          "Most bytes read from remote storage per second, all partitions together.",
                          &TS::fetch_max_bytes_per_second)));
  auto follower = unused_int("remote.log.manager.follower.thread.pool.size", "2", 1, "Threads of follower tasks.",
                             "one node has no followers");
  follower.dynamic = follower.no_effect = true;
  d.push_back(std::move(follower));
}

// Aiven's RemoteStorageManagerConfig keys, under rsm.config.
void add_rsm_keys(std::vector<ConfigKeyDef>& d) {
  d.push_back(text(rsm("storage.backend.class"), "",
                   "The storage backend: io.aiven.kafka.tieredstorage.storage.s3.S3Storage (Skiff's store speaks "
                   "S3).",
                   [](TS& t, std::string v) { t.storage_backend_class = std::move(v); }));
  d.push_back(text(rsm("key.prefix"), "", "The object storage path prefix.",
                   [](TS& t, std::string v) { t.key_prefix = std::move(v); }));
  d.push_back(boolean(rsm("key.prefix.mask"), false, "Whether to mask the path prefix in logs.",
                      [](TS& t, bool v) { t.key_prefix_mask = v; }));
  d.push_back(number(rsm("chunk.size"), 4194304, 1,
                     "Size of the parts segments are read and fetched in (Aiven requires it; Skiff defaults to "
                     "4 MiB, Aiven's recommended start).",
                     &TS::chunk_size, 1073741823));
  d.push_back(boolean(rsm("compression.enabled"), false,
                      "Compress segments in the store. Skiff stores them as the producers compressed them (a "
                      "warning when true).",
                      [](TS& t, bool v) { t.compression_enabled = v; }));
  d.push_back(boolean(rsm("compression.heuristic.enabled"), false,
                      "Compress only segments whose batches are not compressed (needs compression.enabled).",
                      [](TS& t, bool v) { t.compression_heuristic_enabled = v; }));
  d.push_back(boolean(rsm("encryption.enabled"), false,
                      "Encrypt segments in the store. Skiff does not encrypt: true is refused (use the store's "
                      "server-side encryption).",
                      [](TS& t, bool v) { t.encryption_enabled = v; }));
  d.push_back(unused_text(rsm("encryption.key.pair.id"), ConfigType::kString, "", "The key pair used for encryption.",
                          "used only with encryption, which Skiff refuses"));
  d.push_back(unused_text(rsm("encryption.key.pairs"), ConfigType::kList, "", "The encryption key pair ids.",
                          "used only with encryption, which Skiff refuses"));
  d.push_back(optional_number(rsm("upload.rate.limit.bytes.per.second"), 1048576, INT32_MAX,
                              "Upper bound on bytes uploaded per second (at least 1 MiB/s).",
                              [](TS& t, std::optional<int64_t> v) { t.upload_rate_limit_bytes_per_second = v; }));
  d.push_back(ConfigKeyDef{rsm("custom.metadata.fields.include"), ConfigType::kList, "",
                           "Custom metadata stored with each remote segment's metadata.",
                           [](BrokerConfig& c, const std::string& v) {
                             auto items = split_list(v);
                             for (const auto& i : items)
                               if (i != "REMOTE_SIZE" && i != "OBJECT_PREFIX" && i != "OBJECT_KEY")
                                 throw std::invalid_argument(fmt::format(
                                     "Invalid value {}: must be one of REMOTE_SIZE, OBJECT_PREFIX, OBJECT_KEY", i));
                             c.tiered_storage.custom_metadata_fields = std::move(items);
                           },
                           "a list of REMOTE_SIZE, OBJECT_PREFIX, OBJECT_KEY"});
  d.push_back(choice(rsm("segment.format"), "kafka", {"kafka", "iceberg"},
                     "The format segments are stored in (Skiff stores Kafka's; iceberg is refused).",
                     [](TS& t, std::string v) { t.segment_format = std::move(v); }));
}

// Aiven's plugin keys Skiff has no use for: its metrics and caches.
void add_rsm_unused_keys(std::vector<ConfigKeyDef>& d) {
  constexpr std::string_view kMetrics = "Skiff's metrics are on /metrics";
  d.push_back(unused_int(rsm("metrics.num.samples"), "2", 1, "Samples kept to compute metrics.", kMetrics));
  d.push_back(unused_long(rsm("metrics.sample.window.ms"), "30000", 1, "Window of a metrics sample.", kMetrics));
  d.push_back(unused_text(rsm("metrics.recording.level"), ConfigType::kString, "INFO",
                          "The highest recording level for metrics.", kMetrics));
  constexpr std::string_view kCaches =
      "Skiff's caches are bounded by remote.log.index.file.cache.total.size.bytes and its own segment cache";
  d.push_back(
      unused_text(rsm("fetch.chunk.cache.class"), ConfigType::kString, "", "Chunk cache implementation.", kCaches));
  d.push_back(
      unused_text(rsm("fetch.chunk.cache.path"), ConfigType::kString, "", "Disk chunk cache directory.", kCaches));
  const std::pair<const char*, const char*> bounds[] = {
      {"fetch.chunk.cache.size", ""},           {"fetch.chunk.cache.retention.ms", "600000"},
      {"fetch.manifest.cache.size", "1000"},    {"fetch.manifest.cache.retention.ms", "3600000"},
      {"fetch.indexes.cache.size", "10485760"}, {"fetch.indexes.cache.retention.ms", "600000"}};
  for (const auto& [key, def] : bounds)
    d.push_back(unused_long(rsm(key), def, -1, "A fetch cache's bound (-1: unbounded).", kCaches));
  d.push_back(
      unused_int(rsm("fetch.chunk.cache.prefetch.max.size"), "0", 0, "Data prefetched into the cache.", kCaches));
}

// An http:// or https:// URL with a host (Aiven's ValidUrl).
void check_url(const std::string& v) {
  const auto scheme = v.find("://");
  const auto lower = to_lower(v.substr(0, scheme == std::string::npos ? 0 : scheme));
  if (scheme == std::string::npos || (lower != "http" && lower != "https") || v.size() == scheme + 3 ||
      v[scheme + 3] == '/')
    throw std::invalid_argument("Must be a valid URL (http://host[:port] or https://host[:port])");
}

// Aiven's S3StorageConfig keys, under rsm.config.storage.
void add_s3_keys(std::vector<ConfigKeyDef>& d) {
  d.push_back(text(rsm("storage.s3.bucket.name"), "", "S3 bucket to store log segments.",
                   [](TS& t, std::string v) { t.s3.bucket = std::move(v); }));
  d.push_back(ConfigKeyDef{rsm("storage.s3.endpoint.url"), ConfigType::kString, "",
                           "S3 endpoint URL (empty: AWS's, https://s3.<region>.amazonaws.com).",
                           [](BrokerConfig& c, const std::string& v) {
                             std::string url(trim(v));
                             if (!url.empty()) check_url(url);
                             c.tiered_storage.s3.endpoint_url = std::move(url);
                           },
                           "a URL"});
  d.push_back(text(rsm("storage.s3.region"), "", "Region of the bucket (signed into every request).",
                   [](TS& t, std::string v) { t.s3.region = std::move(v); }));
  d.push_back(ConfigKeyDef{
      rsm("storage.s3.path.style.access.enabled"), ConfigType::kBool, "",
      "Path-style addressing (host/bucket/key) instead of virtual hosts (bucket.host/key); "
      "unset: virtual hosts, as the AWS SDK.",
      [](BrokerConfig& c, const std::string& v) { c.tiered_storage.s3.path_style = !trim(v).empty() && kafka_bool(v); },
      "true or false"});
  d.push_back(ConfigKeyDef{rsm("storage.s3.multipart.upload.part.size"), ConfigType::kInt, "26214400",
                           "Size of the parts of a multipart upload (5 MiB to 2 GiB).",
                           [](BrokerConfig& c, const std::string& v) {
                             c.tiered_storage.s3.multipart_part_size = static_cast<int32_t>(
                                 kafka_integer(v, "INT", INT32_MIN, INT32_MAX, 5242880, INT32_MAX));
                           },
                           "[5242880,...]"});
  d.push_back(optional_number(rsm("storage.s3.api.call.timeout"), 1, INT64_MAX,
                              "S3 API call timeout in milliseconds, including all retries.",
                              [](TS& t, std::optional<int64_t> v) { t.s3.api_call_timeout_ms = v; }));
  d.push_back(optional_number(rsm("storage.s3.api.call.attempt.timeout"), 1, INT64_MAX,
                              "S3 API call attempt (single retry) timeout in milliseconds.",
                              [](TS& t, std::optional<int64_t> v) { t.s3.api_call_attempt_timeout_ms = v; }));
  d.push_back(choice(rsm("storage.s3.storage.class"), "STANDARD",
                     {"STANDARD", "REDUCED_REDUNDANCY", "STANDARD_IA", "ONEZONE_IA", "INTELLIGENT_TIERING", "GLACIER",
                      "DEEP_ARCHIVE", "OUTPOSTS", "GLACIER_IR", "SNOW", "EXPRESS_ONEZONE", "FSX_OPENZFS"},
                     "Storage class of uploaded objects (Skiff uploads STANDARD; others are refused).",
                     [](TS& t, std::string v) { t.s3_storage_class = std::move(v); }));
  d.push_back(unused(
      boolean(rsm("storage.s3.legacy.md5.plugin.enabled"), false, "Send Content-MD5 (older stores).", [](TS&, bool) {}),
      "Skiff always sends Content-MD5 and the payload's SHA-256"));
}

void add_aws_keys(std::vector<ConfigKeyDef>& d) {
  d.push_back(text(
      rsm("storage.aws.access.key.id"), "", "AWS access key id (else AWS_ACCESS_KEY_ID).",
      [](TS& t, std::string v) { t.s3.access_key_id = std::move(v); }, ConfigType::kPassword));
  d.push_back(text(
      rsm("storage.aws.secret.access.key"), "", "AWS secret access key (else AWS_SECRET_ACCESS_KEY).",
      [](TS& t, std::string v) { t.s3.secret_access_key = std::move(v); }, ConfigType::kPassword));
  d.push_back(text(rsm("storage.aws.credentials.provider.class"), "",
                   "AWS credentials provider: Skiff takes the keys above or the environment "
                   "(software.amazon.awssdk.auth.credentials.EnvironmentVariableCredentialsProvider).",
                   [](TS& t, std::string v) { t.credentials_provider_class = std::move(v); }));
  d.push_back(boolean(rsm("storage.aws.certificate.check.enabled"), true,
                      "Check the store's TLS certificate (false is refused: give the store's CA with "
                      "skiff.remote.storage.s3.ca.file).",
                      [](TS& t, bool v) { t.certificate_check_enabled = v; }));
  d.push_back(unused(
      boolean(rsm("storage.aws.checksum.check.enabled"), false, "The AWS SDK's checksum validation.", [](TS&, bool) {}),
      "Skiff checks every upload's and download's MD5 ETag itself"));
  d.push_back(text("skiff.remote.storage.s3.ca.file", "",
                   "PEM file of the CAs that sign the object store's TLS certificate (empty: OpenSSL's default CAs).",
                   [](TS& t, std::string v) { t.s3.ca_file = std::move(v); }));
}

// Kafka's TopicBasedRemoteLogMetadataManagerConfig keys, under rlmm.config.
void add_rlmm_keys(std::vector<ConfigKeyDef>& d) {
  d.push_back(number(rlmm("remote.log.metadata.topic.num.partitions"), 50, 1,
                     "Partitions of the remote log metadata topic.", &TS::metadata_topic_partitions));
  d.push_back(number(rlmm("remote.log.metadata.topic.replication.factor"), 3, 1,
                     "Replication factor of the remote log metadata topic (one node: one replica).",
                     &TS::metadata_topic_replication_factor));
  d.push_back(number(rlmm("remote.log.metadata.topic.min.isr"), 2, 1,
                     "Replicas that must acknowledge a write to the remote log metadata topic (one node: one).",
                     &TS::metadata_topic_min_isr));
  d.push_back(number(rlmm("remote.log.metadata.topic.retention.ms"), -1, INT64_MIN,
                     "Retention of the remote log metadata topic (-1: unlimited).", &TS::metadata_topic_retention_ms));
  constexpr std::string_view kInProcess = "Skiff's metadata manager writes and reads its topic in process";
  d.push_back(unused_long(rlmm("remote.log.metadata.consume.wait.ms"), "120000", 0,
                          "Wait for the local consumer to receive a published event.", kInProcess));
  d.push_back(unused_long(rlmm("remote.log.metadata.initialization.retry.interval.ms"), "100", 0,
                          "Retry interval of the metadata manager's initialization.", kInProcess));
  d.push_back(unused_long(rlmm("remote.log.metadata.initialization.retry.max.timeout.ms"), "120000", 0,
                          "Longest retrying of the metadata manager's initialization.", kInProcess));
}

[[noreturn]] void refuse(const std::string& what) { throw ConfigError(what); }

// Kafka's ConfigDef words for a required key without a value.
void require(const std::string& value, const std::string& key, std::string_view hint) {
  if (value.empty())
    refuse(fmt::format("Missing required configuration \"{}\" which has no default value. {}", key, hint));
}

// The plugins a Kafka config names: the ones Skiff serves, under their default prefixes.
void check_plugins(const TS& t) {
  constexpr auto kRsm = "remote.log.storage.manager.class.name";
  if (t.storage_manager_class.empty())
    refuse(
        fmt::format("{} must be set when remote.log.storage.system.enable=true: {} selects Skiff's built-in S3 "
                    "store, configured with Aiven's tiered-storage-for-apache-kafka keys under {}",
                    kRsm, kAivenRemoteStorageManager, kDefaultRsmPrefix));
  if (t.storage_manager_class != kAivenRemoteStorageManager)
    refuse(
        fmt::format("{}={}: Skiff loads no Java plugins; its built-in S3 store is selected by {} (Aiven's "
                    "tiered-storage-for-apache-kafka, whose keys it reads under {})",
                    kRsm, t.storage_manager_class, kAivenRemoteStorageManager, kDefaultRsmPrefix));
  if (t.metadata_manager_class != kTopicBasedRemoteLogMetadataManager)
    refuse(
        fmt::format("remote.log.metadata.manager.class.name={}: Skiff loads no Java plugins; its remote log "
                    "metadata is kept as Kafka's {} keeps it (the default)",
                    t.metadata_manager_class, kTopicBasedRemoteLogMetadataManager));
  if (t.storage_manager_prefix != kDefaultRsmPrefix)
    refuse(
        fmt::format("remote.log.storage.manager.impl.prefix={}: Skiff reads the storage manager's keys under {} "
                    "(Kafka's default) only; write them as {}<key>",
                    t.storage_manager_prefix, kDefaultRsmPrefix, kDefaultRsmPrefix));
  if (t.metadata_manager_prefix != kDefaultRlmmPrefix)
    refuse(
        fmt::format("remote.log.metadata.manager.impl.prefix={}: Skiff reads the metadata manager's keys under {} "
                    "(Kafka's default) only; write them as {}<key>",
                    t.metadata_manager_prefix, kDefaultRlmmPrefix, kDefaultRlmmPrefix));
}

// Aiven's features Skiff does not have, refused rather than silently not done.
void check_refused_features(const TS& t) {
  if (t.storage_backend_class != kAivenS3Storage)
    refuse(fmt::format("{}={}: Skiff's store speaks S3 only ({})", rsm("storage.backend.class"),
                       t.storage_backend_class, kAivenS3Storage));
  if (t.encryption_enabled)
    refuse(
        fmt::format("{}=true: Skiff does not encrypt segments in the store; rather than store them in clear, "
                    "it refuses to start. Use the store's server-side encryption and set it to false",
                    rsm("encryption.enabled")));
  if (t.segment_format != "kafka")
    refuse(fmt::format("{}={}: Skiff stores segments in Kafka's format only", rsm("segment.format"), t.segment_format));
  if (t.s3_storage_class != "STANDARD")
    refuse(
        fmt::format("{}={}: Skiff uploads with the STANDARD storage class only (a bucket lifecycle rule can move "
                    "objects to {})",
                    rsm("storage.s3.storage.class"), t.s3_storage_class, t.s3_storage_class));
  if (!t.certificate_check_enabled)
    refuse(
        fmt::format("{}=false: Skiff always checks the store's TLS certificate; give the CA that signs it with "
                    "skiff.remote.storage.s3.ca.file",
                    rsm("storage.aws.certificate.check.enabled")));
  if (t.compression_heuristic_enabled && !t.compression_enabled)
    refuse(
        fmt::format("{} must be enabled if {} is", rsm("compression.enabled"), rsm("compression.heuristic.enabled")));
}

// Static keys or the environment, as Aiven's S3StorageConfig and the AWS SDK's environment provider.
void check_credentials(const TS& t, const std::map<std::string, std::string>& env) {
  const auto id = rsm("storage.aws.access.key.id"), secret = rsm("storage.aws.secret.access.key");
  const auto provider = rsm("storage.aws.credentials.provider.class");
  if (t.s3.access_key_id.empty() != t.s3.secret_access_key.empty())
    refuse(fmt::format("{} and {} must be defined together", id, secret));
  constexpr std::string_view kEnvProvider =
      "software.amazon.awssdk.auth.credentials.EnvironmentVariableCredentialsProvider";
  if (!t.credentials_provider_class.empty() && !t.s3.access_key_id.empty())
    refuse(
        fmt::format("Either  static credential pair {} and {} must be set together, or a custom provider class "
                    "{}. If both are null, default S3 credentials provider is used.",
                    id, secret, provider));
  if (!t.credentials_provider_class.empty() && t.credentials_provider_class != kEnvProvider)
    refuse(fmt::format("{}={}: Skiff takes the credentials from {} and {}, or from the environment ({})", provider,
                       t.credentials_provider_class, id, secret, kEnvProvider));
  auto has = [&](const char* name) {
    auto it = env.find(name);
    return it != env.end() && !it->second.empty();
  };
  if (t.s3.access_key_id.empty() && (!has("AWS_ACCESS_KEY_ID") || !has("AWS_SECRET_ACCESS_KEY")))
    refuse(
        fmt::format("no credentials for the object store: set {} and {}, or AWS_ACCESS_KEY_ID and "
                    "AWS_SECRET_ACCESS_KEY in the broker's environment",
                    id, secret));
}

void check_store(BrokerConfig& cfg, const std::map<std::string, std::string>& env) {
  auto& t = cfg.tiered_storage;
  require(t.storage_backend_class, rsm("storage.backend.class"),
          fmt::format("Skiff's S3 store is {}.", kAivenS3Storage));
  check_refused_features(t);
  require(t.s3.bucket, rsm("storage.s3.bucket.name"), "Name the bucket segments go to.");
  require(t.s3.region, rsm("storage.s3.region"), "Name the bucket's region (us-east-1 for most S3-compatible stores).");
  check_credentials(t, env);
  if (!t.s3.ca_file.empty() && !std::ifstream(t.s3.ca_file))
    refuse(fmt::format("skiff.remote.storage.s3.ca.file={}: cannot read the file", t.s3.ca_file));
  if (t.s3.endpoint_url.empty())
    cfg.warnings.push_back(fmt::format("tiered storage: {} is not set: the store is AWS's, https://s3.{}.amazonaws.com",
                                       rsm("storage.s3.endpoint.url"), t.s3.region));
  if (t.compression_enabled)
    cfg.warnings.push_back(fmt::format(
        "tiered storage: {}=true: Skiff stores segments as the producers compressed them (not compressed again)",
        rsm("compression.enabled")));
  if (t.metadata_topic_replication_factor > 1 || t.metadata_topic_min_isr > 1)
    cfg.warnings.push_back(
        fmt::format("tiered storage: {}={} and {}={}: a single node keeps one replica of __remote_log_metadata",
                    rlmm("remote.log.metadata.topic.replication.factor"), t.metadata_topic_replication_factor,
                    rlmm("remote.log.metadata.topic.min.isr"), t.metadata_topic_min_isr));
}

// Kafka's LogConfig.validateRemoteStorageRetentionSize/Time on the broker's
// defaults (validateBrokerLogConfigValues), in Kafka's words (which name the
// topic keys), then the broker keys they come from.
void check_local_retention(int64_t retention, int64_t local, bool unlimited_is_minus_one, std::string_view what) {
  const bool limited = unlimited_is_minus_one ? retention != -1 : retention > -1;
  if (!limited || local == -2) return;
  std::string why;
  if (local == -1)
    why = fmt::format("Value must not be -1 as retention.{} value is set as {}.", what, retention);
  else if (local > retention)
    why = fmt::format("Value must not be more than retention.{} property value: {}", what, retention);
  if (!why.empty())
    refuse(
        fmt::format("Invalid value {} for configuration local.retention.{}: {} (broker configs "
                    "log.local.retention.{} and log.retention.{})",
                    local, what, why, what, what));
}

bool tiered_or_retention_key(const std::string& key) {
  for (std::string_view prefix : {std::string_view("remote."), std::string_view("log.local."),
                                  std::string_view("log.remote."), kDefaultRsmPrefix, kDefaultRlmmPrefix})
    if (key.rfind(prefix, 0) == 0) return true;
  return key == "log.retention.ms" || key == "log.retention.bytes" || key == "skiff.remote.storage.s3.ca.file";
}

}  // namespace

void add_tiered_storage_keys(std::vector<ConfigKeyDef>& defs) {
  add_system_keys(defs);
  add_manager_keys(defs);
  add_dynamic_keys(defs);
  add_rsm_keys(defs);
  add_rsm_unused_keys(defs);
  add_s3_keys(defs);
  add_aws_keys(defs);
  add_rlmm_keys(defs);
}

void check_tiered_storage(BrokerConfig& cfg, const std::map<std::string, std::string>& environment) {
  const auto& t = cfg.tiered_storage;
  if (!t.enabled) return;
  check_plugins(t);
  check_store(cfg, environment);
  check_local_retention(cfg.log_retention_bytes, t.log_local_retention_bytes, false, "bytes");
  check_local_retention(cfg.log_retention_ms, t.log_local_retention_ms, true, "ms");
}

TieredStorageSettings tiered_storage_from_properties(const std::map<std::string, std::string>& properties,
                                                     const std::map<std::string, std::string>& environment) {
  BrokerConfig cfg;
  for (const auto& [key, value] : properties) {
    const auto* def = find_config_def(key);
    if (!def) continue;
    if (!tiered_or_retention_key(key)) continue;
    try {
      def->apply(cfg, value);
    } catch (const std::invalid_argument& e) {
      throw ConfigError(fmt::format("Invalid value '{}' for configuration '{}': {}; allowed: {}",
                                    def->type == ConfigType::kPassword ? "[hidden]" : value, key, e.what(),
                                    def->allowed));
    }
  }
  check_tiered_storage(cfg, environment);
  return cfg.tiered_storage;
}

}  // namespace skiff::config
