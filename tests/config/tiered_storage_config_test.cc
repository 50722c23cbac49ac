// Tiered storage's broker keys (config/tiered_storage_keys.h): Kafka 4.4's
// RemoteLogManagerConfig names, defaults and bounds, Aiven's storage manager
// keys under rsm.config., the metadata manager's under rlmm.config., the
// start-up checks with the system enabled; a valid configuration starts.
#include <catch2/catch.hpp>

#include "config/config_def.h"
#include "config/tiered_storage_keys.h"
#include "tests/config/config_test_util.h"

using namespace skiff::config;
using skiff::config::test::error_of;
using skiff::config::test::load_with;

namespace {

using Props = std::map<std::string, std::string>;

const Props kEnv = {{"AWS_ACCESS_KEY_ID", "id"}, {"AWS_SECRET_ACCESS_KEY", "secret"}};

// Aiven's README example for S3, as a Kafka user writes it.
Props aiven_s3() {
  return {{"remote.log.storage.system.enable", "true"},
          {"remote.log.storage.manager.class.name", "io.aiven.kafka.tieredstorage.RemoteStorageManager"},
          {"remote.log.storage.manager.impl.prefix", "rsm.config."},
          {"remote.log.metadata.manager.impl.prefix", "rlmm.config."},
          {"rlmm.config.remote.log.metadata.topic.replication.factor", "1"},
          {"rsm.config.storage.backend.class", "io.aiven.kafka.tieredstorage.storage.s3.S3Storage"},
          {"rsm.config.storage.s3.endpoint.url", "http://127.0.0.1:7070"},
          {"rsm.config.storage.s3.bucket.name", "test-bucket"},
          {"rsm.config.storage.s3.region", "us-east-1"},
          {"rsm.config.storage.s3.path.style.access.enabled", "true"},
          {"rsm.config.storage.aws.access.key.id", "AKIA"},
          {"rsm.config.storage.aws.secret.access.key", "s3cr3t"},
          {"rsm.config.chunk.size", "4194304"},
          {"rsm.config.key.prefix", "tiered/"}};
}

std::string refusal(const Props& props, const Props& env = kEnv) {
  try {
    tiered_storage_from_properties(props, env);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

Props with(Props p, const std::string& key, const std::string& value) {
  p[key] = value;
  return p;
}

Props without(Props p, const std::string& key) {
  p.erase(key);
  return p;
}

std::vector<std::string> as_overrides(const Props& p) {
  std::vector<std::string> out;
  for (const auto& [k, v] : p) out.push_back(std::string(k).append("=").append(v));
  return out;
}

}  // namespace

TEST_CASE("tiered storage keys: Kafka 4.4's defaults, off by default", "[config][tiered]") {
  const auto t = load_with({}).tiered_storage;
  CHECK_FALSE(t.enabled);
  CHECK(t.storage_manager_class.empty());
  CHECK(t.storage_manager_prefix == "rsm.config.");
  CHECK(t.metadata_manager_class ==
        "org.apache.kafka.server.log.remote.metadata.storage.TopicBasedRemoteLogMetadataManager");
  CHECK(t.metadata_manager_prefix == "rlmm.config.");
  CHECK(t.task_interval_ms == 30000);
  CHECK(t.copier_threads == 10);
  CHECK(t.expiration_threads == 10);
  CHECK(t.reader_threads == 10);
  CHECK(t.fetch_max_wait_ms == 500);
  CHECK(t.copy_max_bytes_per_second == INT64_MAX);
  CHECK(t.fetch_max_bytes_per_second == INT64_MAX);
  CHECK(t.index_file_cache_total_size_bytes == 1073741824);
  CHECK(t.log_local_retention_ms == -2);
  CHECK(t.log_local_retention_bytes == -2);
  CHECK(t.metadata_topic_partitions == 50);
  CHECK(t.metadata_topic_replication_factor == 3);
  CHECK(t.metadata_topic_retention_ms == -1);
  CHECK(t.chunk_size == 4194304);
  CHECK(t.s3.multipart_part_size == 26214400);
}

TEST_CASE("tiered storage keys: values parsed, bounds in Kafka's words", "[config][tiered]") {
  const auto t = load_with({"remote.log.manager.task.interval.ms=1000", "remote.log.manager.copier.thread.pool.size=2",
                            "remote.log.manager.expiration.thread.pool.size=3", "remote.log.reader.threads=4",
                            "remote.fetch.max.wait.ms=250", "remote.log.manager.copy.max.bytes.per.second=1048576",
                            "remote.log.manager.fetch.max.bytes.per.second=2097152",
                            "remote.log.index.file.cache.total.size.bytes=65536", "log.local.retention.ms=60000",
                            "log.local.retention.bytes=1048576"})
                     .tiered_storage;
  CHECK(t.task_interval_ms == 1000);
  CHECK(t.copier_threads == 2);
  CHECK(t.expiration_threads == 3);
  CHECK(t.reader_threads == 4);
  CHECK(t.fetch_max_wait_ms == 250);
  CHECK(t.copy_max_bytes_per_second == 1048576);
  CHECK(t.fetch_max_bytes_per_second == 2097152);
  CHECK(t.index_file_cache_total_size_bytes == 65536);
  CHECK(t.log_local_retention_ms == 60000);
  CHECK(t.log_local_retention_bytes == 1048576);

  CHECK_THAT(error_of({"remote.log.manager.task.interval.ms=0"}), Catch::Contains("Value must be at least 1"));
  CHECK_THAT(error_of({"remote.log.reader.threads=x"}), Catch::Contains("Not a number of type INT"));
  CHECK_THAT(error_of({"log.local.retention.ms=-3"}), Catch::Contains("Value must be at least -2"));
  CHECK_THAT(error_of({"remote.log.manager.task.retry.jitter=0.6"}), Catch::Contains("Value must be no more than 0.5"));
  CHECK_THAT(error_of({"rsm.config.chunk.size=1073741824"}), Catch::Contains("Value must be no more than 1073741823"));
  CHECK_THAT(error_of({"rsm.config.storage.s3.multipart.upload.part.size=1024"}),
             Catch::Contains("Value must be at least 5242880"));
  CHECK_THAT(error_of({"rsm.config.storage.s3.endpoint.url=localhost:9000"}), Catch::Contains("Must be a valid URL"));
  CHECK_THAT(error_of({"rsm.config.storage.s3.storage.class=COLD"}), Catch::Contains("String must be one of"));
  CHECK_THAT(error_of({"rsm.config.custom.metadata.fields.include=REMOTE_SIZE,SIZE"}),
             Catch::Contains("REMOTE_SIZE, OBJECT_PREFIX, OBJECT_KEY"));
  CHECK_THAT(error_of({"rsm.config.upload.rate.limit.bytes.per.second=1024"}),
             Catch::Contains("Value must be at least 1048576"));
  CHECK_THAT(error_of({"rlmm.config.remote.log.metadata.topic.replication.factor=0"}),
             Catch::Contains("Value must be at least 1"));
}

TEST_CASE("tiered storage keys: the dynamic ones stay Kafka's dynamic keys", "[config][tiered]") {
  for (const char* key :
       {"log.local.retention.ms", "log.local.retention.bytes", "log.remote.copy.lag.ms", "log.remote.copy.lag.bytes",
        "remote.fetch.max.wait.ms", "remote.list.offsets.request.timeout.ms",
        "remote.log.index.file.cache.total.size.bytes", "remote.log.manager.copier.thread.pool.size",
        "remote.log.manager.copy.max.bytes.per.second", "remote.log.manager.expiration.thread.pool.size",
        "remote.log.manager.fetch.max.bytes.per.second", "remote.log.manager.follower.thread.pool.size",
        "remote.log.reader.threads"}) {
    const auto* def = find_config_def(key);
    REQUIRE(def);
    CHECK(def->dynamic);
  }
  for (const char* key : {"remote.log.storage.system.enable", "remote.log.storage.manager.class.name",
                          "remote.log.manager.task.interval.ms", "rsm.config.storage.s3.bucket.name"}) {
    const auto* def = find_config_def(key);
    REQUIRE(def);
    CHECK_FALSE(def->dynamic);
  }
  CHECK(find_config_def("rsm.config.storage.aws.secret.access.key")->type == ConfigType::kPassword);
  CHECK(find_config_def("rsm.config.storage.aws.access.key.id")->type == ConfigType::kPassword);
}

TEST_CASE("Aiven's S3 config is read as Aiven's plugin reads it", "[config][tiered]") {
  const auto t = tiered_storage_from_properties(aiven_s3(), {});
  CHECK(t.enabled);
  CHECK(t.storage_manager_class == "io.aiven.kafka.tieredstorage.RemoteStorageManager");
  CHECK(t.storage_backend_class == "io.aiven.kafka.tieredstorage.storage.s3.S3Storage");
  CHECK(t.s3.endpoint_url == "http://127.0.0.1:7070");
  CHECK(t.s3.bucket == "test-bucket");
  CHECK(t.s3.region == "us-east-1");
  CHECK(t.s3.path_style);
  CHECK(t.s3.access_key_id == "AKIA");
  CHECK(t.s3.secret_access_key == "s3cr3t");
  CHECK(t.key_prefix == "tiered/");
  CHECK(t.chunk_size == 4194304);
  CHECK(t.metadata_topic_replication_factor == 1);

  // Keys from the environment when the pair is not given; a CA file.
  auto env_keys =
      without(without(aiven_s3(), "rsm.config.storage.aws.access.key.id"), "rsm.config.storage.aws.secret.access.key");
  CHECK(refusal(env_keys) == "");
  CHECK_THAT(refusal(env_keys, {}), Catch::Contains("no credentials for the object store") &&
                                        Catch::Contains("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"));
  CHECK_THAT(refusal(with(aiven_s3(), "skiff.remote.storage.s3.ca.file", "/no/such/ca.pem")),
             Catch::Contains("cannot read the file"));
  // Without the system enabled nothing is required, as Kafka reads the plugins' keys only to start them.
  CHECK(refusal({{"rsm.config.storage.s3.bucket.name", "b"}}) == "");
  CHECK_FALSE(tiered_storage_from_properties({}, {}).enabled);
}

TEST_CASE("tiered storage with the system enabled: the plugins Skiff serves", "[config][tiered]") {
  CHECK(refusal(aiven_s3()) == "");
  CHECK_THAT(refusal(without(aiven_s3(), "remote.log.storage.manager.class.name")),
             Catch::Contains("remote.log.storage.manager.class.name must be set") &&
                 Catch::Contains("io.aiven.kafka.tieredstorage.RemoteStorageManager"));
  CHECK_THAT(refusal(with(aiven_s3(), "remote.log.storage.manager.class.name",
                          "org.apache.kafka.server.log.remote.storage.NoOpRemoteStorageManager")),
             Catch::Contains("Skiff loads no Java plugins"));
  CHECK_THAT(refusal(with(aiven_s3(), "remote.log.metadata.manager.class.name", "com.example.Rlmm")),
             Catch::Contains("remote.log.metadata.manager.class.name=com.example.Rlmm"));
  CHECK_THAT(refusal(with(aiven_s3(), "remote.log.storage.manager.impl.prefix", "store.")),
             Catch::Contains("under rsm.config."));
  CHECK_THAT(refusal(without(aiven_s3(), "rsm.config.storage.backend.class")),
             Catch::Contains("Missing required configuration \"rsm.config.storage.backend.class\" which has no default "
                             "value."));
  CHECK_THAT(refusal(with(aiven_s3(), "rsm.config.storage.backend.class",
                          "io.aiven.kafka.tieredstorage.storage.gcs.GcsStorage")),
             Catch::Contains("Skiff's store speaks S3 only"));
  CHECK_THAT(refusal(without(aiven_s3(), "rsm.config.storage.s3.bucket.name")),
             Catch::Contains("Missing required configuration \"rsm.config.storage.s3.bucket.name\""));
  CHECK_THAT(refusal(without(aiven_s3(), "rsm.config.storage.s3.region")),
             Catch::Contains("Missing required configuration \"rsm.config.storage.s3.region\""));
  CHECK_THAT(refusal(without(aiven_s3(), "rsm.config.storage.aws.secret.access.key")),
             Catch::Contains("rsm.config.storage.aws.access.key.id and rsm.config.storage.aws.secret.access.key must "
                             "be defined together"));
  CHECK_THAT(refusal(with(aiven_s3(), "rsm.config.storage.aws.credentials.provider.class", "com.example.Creds")),
             Catch::Contains("Either  static credential pair"));
}

TEST_CASE("tiered storage: what Skiff does not do is refused, not silently skipped", "[config][tiered]") {
  CHECK_THAT(refusal(with(aiven_s3(), "rsm.config.encryption.enabled", "true")),
             Catch::Contains("Skiff does not encrypt segments"));
  CHECK_THAT(refusal(with(aiven_s3(), "rsm.config.segment.format", "iceberg")), Catch::Contains("Kafka's format only"));
  CHECK_THAT(refusal(with(aiven_s3(), "rsm.config.storage.s3.storage.class", "GLACIER")),
             Catch::Contains("STANDARD storage class only"));
  CHECK_THAT(refusal(with(aiven_s3(), "rsm.config.storage.aws.certificate.check.enabled", "false")),
             Catch::Contains("always checks the store's TLS certificate"));
  CHECK_THAT(refusal(with(aiven_s3(), "rsm.config.compression.heuristic.enabled", "true")),
             Catch::Contains("rsm.config.compression.enabled must be enabled if rsm.config.compression.heuristic."
                             "enabled is"));
  // Accepted with no use: Aiven's caches and metrics, the legacy MD5 plugin, encryption's key ids.
  auto quiet = aiven_s3();
  quiet["rsm.config.fetch.chunk.cache.class"] = "io.aiven.kafka.tieredstorage.fetch.cache.DiskChunkCache";
  quiet["rsm.config.fetch.chunk.cache.size"] = "1073741824";
  quiet["rsm.config.fetch.manifest.cache.size"] = "-1";
  quiet["rsm.config.metrics.num.samples"] = "3";
  quiet["rsm.config.storage.s3.legacy.md5.plugin.enabled"] = "true";
  CHECK(refusal(quiet) == "");
}

TEST_CASE("tiered storage: local retention within retention, as Kafka's broker checks it", "[config][tiered]") {
  CHECK(refusal(with(with(aiven_s3(), "log.retention.ms", "100000"), "log.local.retention.ms", "100000")) == "");
  CHECK(refusal(with(with(aiven_s3(), "log.retention.ms", "100000"), "log.local.retention.ms", "100001")) ==
        "Invalid value 100001 for configuration local.retention.ms: Value must not be more than retention.ms "
        "property value: 100000 (broker configs log.local.retention.ms and log.retention.ms)");
  CHECK_THAT(refusal(with(with(aiven_s3(), "log.retention.bytes", "1000"), "log.local.retention.bytes", "-1")),
             Catch::StartsWith("Invalid value -1 for configuration local.retention.bytes: Value must not be -1 as "
                               "retention.bytes value is set as 1000."));
  // Unlimited retention: any local retention (retention.bytes -1, retention.ms -1).
  CHECK(refusal(with(aiven_s3(), "log.local.retention.bytes", "5000")) == "");
  CHECK(refusal(with(with(aiven_s3(), "log.retention.ms", "-1"), "log.local.retention.ms", "-1")) == "");
  // Without the system enabled Kafka does not check them.
  CHECK(refusal({{"log.retention.ms", "1000"}, {"log.local.retention.ms", "5000"}}) == "");
}

TEST_CASE("tiered storage enabled: a valid configuration starts", "[config][tiered]") {
  CHECK(error_of(as_overrides(aiven_s3())) == "");
  // An invalid config is reported as such.
  CHECK_THAT(error_of(as_overrides(without(aiven_s3(), "rsm.config.storage.s3.bucket.name"))),
             Catch::Contains("rsm.config.storage.s3.bucket.name"));
  CHECK(error_of(as_overrides(with(aiven_s3(), "remote.log.storage.system.enable", "false"))) == "");
}
