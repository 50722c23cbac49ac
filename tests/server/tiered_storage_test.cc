// The broker's tiered storage settings onto the remote parts
// (server/tiered_storage.h): Aiven's rsm.config. keys onto the storage
// manager's S3 config (endpoint or AWS's from the region, bucket, region,
// path style, credentials from the keys or the environment, key prefix, CA
// file, part size, timeouts), the rlmm.config. keys onto the metadata topic,
// remote.log.manager.* onto the manager; and the LogManager's side
// (server/storage_config.h): the system switch and the broker defaults of
// the remote topic keys.
#include "server/tiered_storage.h"

#include <stdlib.h>

#include <catch2/catch.hpp>

#include "config/tiered_storage_keys.h"
#include "server/storage_config.h"
#include "tests/support/temp_dir.h"

using namespace skiff;
using namespace skiff::server;

namespace {

using Props = std::map<std::string, std::string>;

Props aiven_s3() {
  return {{"remote.log.storage.system.enable", "true"},
          {"remote.log.storage.manager.class.name", "io.aiven.kafka.tieredstorage.RemoteStorageManager"},
          {"rsm.config.storage.backend.class", "io.aiven.kafka.tieredstorage.storage.s3.S3Storage"},
          {"rsm.config.storage.s3.endpoint.url", "http://127.0.0.1:7070"},
          {"rsm.config.storage.s3.bucket.name", "kafka-tiered"},
          {"rsm.config.storage.s3.region", "eu-west-1"},
          {"rsm.config.storage.s3.path.style.access.enabled", "true"},
          {"rsm.config.storage.aws.access.key.id", "AKIA"},
          {"rsm.config.storage.aws.secret.access.key", "s3cr3t"},
          {"rsm.config.key.prefix", "tiered/"},
          {"rsm.config.storage.s3.multipart.upload.part.size", "10485760"},
          {"rsm.config.storage.s3.api.call.attempt.timeout", "2500"},
          {"skiff.remote.storage.s3.ca.file", "/dev/null"},
          {"rlmm.config.remote.log.metadata.topic.num.partitions", "7"},
          {"rlmm.config.remote.log.metadata.topic.retention.ms", "86400000"},
          {"remote.log.manager.task.interval.ms", "250"},
          {"remote.log.manager.copier.thread.pool.size", "3"},
          {"remote.log.manager.expiration.thread.pool.size", "2"},
          {"remote.log.manager.task.retry.backoff.ms", "100"},
          {"remote.log.manager.task.retry.backoff.max.ms", "2000"},
          {"remote.log.manager.copy.max.bytes.per.second", "1048576"}};
}

config::TieredStorageSettings settings(const Props& p, const Props& env = {}) {
  return config::tiered_storage_from_properties(p, env);
}

}  // namespace

TEST_CASE("tiered storage: Aiven's keys onto the storage manager's config", "[server][tiered]") {
  const auto c = make_remote_storage_config(settings(aiven_s3()));
  CHECK(c.s3.endpoint_url == "http://127.0.0.1:7070");
  CHECK(c.s3.bucket == "kafka-tiered");
  CHECK(c.s3.region == "eu-west-1");
  CHECK(c.s3.path_style);
  CHECK(c.s3.credentials.access_key_id == "AKIA");
  CHECK(c.s3.credentials.secret_access_key == "s3cr3t");
  CHECK(c.s3.http.ca_file == "/dev/null");
  CHECK(c.s3.http.io_timeout == std::chrono::milliseconds(2500));
  CHECK(c.s3.http.connect_timeout == std::chrono::milliseconds(2500));
  CHECK(c.key_prefix == "tiered/");
  CHECK(c.part_size == 10485760);
  CHECK(c.multipart_threshold == 10485760);
  CHECK_FALSE(remote::validate(c).has_value());
}

TEST_CASE("tiered storage: AWS's endpoint from the region, credentials from the environment", "[server][tiered]") {
  auto p = aiven_s3();
  p.erase("rsm.config.storage.s3.endpoint.url");
  p.erase("rsm.config.storage.aws.access.key.id");
  p.erase("rsm.config.storage.aws.secret.access.key");
  p.erase("rsm.config.storage.s3.path.style.access.enabled");
  p.erase("rsm.config.storage.s3.api.call.attempt.timeout");
  const Props env = {{"AWS_ACCESS_KEY_ID", "ENVKEY"}, {"AWS_SECRET_ACCESS_KEY", "envsecret"}};
  const auto t = settings(p, env);
  ::setenv("AWS_ACCESS_KEY_ID", "ENVKEY", 1);
  ::setenv("AWS_SECRET_ACCESS_KEY", "envsecret", 1);
  const auto c = make_remote_storage_config(t);
  CHECK(c.s3.endpoint_url == "https://s3.eu-west-1.amazonaws.com");
  CHECK_FALSE(c.s3.path_style);
  CHECK(c.s3.credentials.access_key_id == "ENVKEY");
  CHECK(c.s3.credentials.secret_access_key == "envsecret");
  CHECK(c.s3.http.io_timeout == std::chrono::milliseconds(30000));  // the client's default
  ::unsetenv("AWS_ACCESS_KEY_ID");
  ::unsetenv("AWS_SECRET_ACCESS_KEY");
  CHECK_THROWS_AS(make_remote_storage_config(t), TieredStorageStartError);
}

TEST_CASE("tiered storage: the metadata topic and the manager's keys", "[server][tiered]") {
  const auto t = settings(aiven_s3());
  const auto m = make_metadata_topic_config(t, 4);
  CHECK(m.partitions == 7);
  CHECK(m.retention_ms == 86400000);
  CHECK(m.broker_id == 4);
  const auto r = make_remote_log_manager_config(t, 4);
  CHECK(r.broker_id == 4);
  CHECK(r.task_interval_ms == 250);
  CHECK(r.copier_threads == 3);
  CHECK(r.expiration_threads == 2);
  CHECK(r.retry_backoff_ms == 100);
  CHECK(r.retry_backoff_max_ms == 2000);
  CHECK(r.copy_max_bytes_per_second == 1048576.0);
  CHECK(make_remote_log_manager_config(config::TieredStorageSettings{}, 1).copy_max_bytes_per_second == 0);
}

TEST_CASE("tiered storage: the log manager learns the system switch and the remote defaults", "[server][tiered]") {
  config::BrokerConfig b;
  b.log_dirs = {"/tmp/x"};
  CHECK_FALSE(make_log_manager_config(b).remote_storage_system_enabled);
  b.tiered_storage.enabled = true;
  b.tiered_storage.log_remote_copy_lag_ms = 5;
  b.tiered_storage.log_remote_copy_lag_bytes = 6;
  const auto lc = make_log_manager_config(b);
  CHECK(lc.remote_storage_system_enabled);
  CHECK(lc.topic_key_defaults.at("remote.copy.lag.ms") == "5");
  CHECK(lc.topic_key_defaults.at("remote.copy.lag.bytes") == "6");
}

TEST_CASE("tiered storage: the reader's settings, and the reads' live dynamic values", "[server][tiered]") {
  auto p = aiven_s3();
  p["remote.log.reader.threads"] = "3";
  p["remote.log.reader.max.pending.tasks"] = "17";
  p["remote.log.index.file.cache.total.size.bytes"] = "12345";
  p["rsm.config.chunk.size"] = "65536";
  const auto rc = make_remote_reader_config(settings(p));
  CHECK(rc.threads == 3);
  CHECK(rc.max_pending == 17);
  CHECK(rc.index_cache_bytes == 12345);
  CHECK(rc.chunk_bytes == 65536);

  // remote.fetch.max.wait.ms and remote.list.offsets.request.timeout.ms are
  // dynamic: the port reads the live config on every fetch.
  config::BrokerConfig cfg;
  cfg.tiered_storage = settings(p);
  config::DynamicBrokerConfig dynamic(cfg);
  test::TempDir dir;
  storage::LogManagerConfig lc;
  lc.log_dirs.push_back(dir / "logs");
  storage::LogManager logs(lc);
  remote::RemoteLogMetadataManager metadata(logs, remote::MetadataTopicConfig{1, -1, 0});
  remote::RemoteStorageManager rsm(make_remote_storage_config(cfg.tiered_storage));
  remote::S3SegmentStore store(rsm);
  remote::RemoteLogReader reader(metadata, store, rc);
  RemoteReadsPort port(reader, cfg, &dynamic);
  CHECK(port.fetch_max_wait() == std::chrono::milliseconds(500));
  CHECK(port.list_offsets_timeout() == std::chrono::milliseconds(30000));
  REQUIRE_FALSE(dynamic.alter(config::DynamicScope::kBroker,
                              {{"remote.fetch.max.wait.ms", "250"}, {"remote.list.offsets.request.timeout.ms", "900"}},
                              false));
  CHECK(port.fetch_max_wait() == std::chrono::milliseconds(250));
  CHECK(port.list_offsets_timeout() == std::chrono::milliseconds(900));
}
