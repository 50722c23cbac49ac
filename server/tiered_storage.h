// TieredStorage: the broker's tiered storage parts (issue 54, KIP-405),
// built from BrokerConfig::tiered_storage only when
// remote.log.storage.system.enable=true:
//
//   RemoteStorageManager (remote/storage/: S3, Aiven's rsm.config. keys)
//     -> S3SegmentStore (the SegmentStore port over it)
//     -> RemoteLogMetadataManager (__remote_log_metadata, rlmm.config. keys)
//     -> RemoteLogManager (copy, expiration, sweep; remote.log.manager.*)
//     -> RemoteLogReader (reads below the local start; remote.log.reader.*,
//        the index cache) behind RemoteReadsPort, api's RemoteReads (Fetch,
//        ListOffsets)
//
// Start (after the LogManager loaded, before the listeners): the bucket
// probe (check_bucket) — a wrong endpoint, bucket or credentials is a
// TieredStorageStartError (the broker does not start); an unreachable store
// is logged and the broker runs on (copies retry each tick, produce goes
// on); abort_stale_uploads once (uploads cut by a crash, older than 1 h);
// the metadata replay; the reader's pool; then the remote log manager
// (recovers every log's highest remote offset, then starts its threads).
// Stop: the reverse (the reader answers its queued reads with an error),
// after the handlers stopped and before the logs close.
//
// The mappings (make_remote_storage_config, make_metadata_topic_config,
// make_remote_log_manager_config) are pure functions, tested alone.
//
// Threads: start() and stop() on the controlling thread; the accessors'
// objects are thread-safe (their headers); collect() from the metrics
// scrape thread.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "common/metrics.h"
#include "config/broker_config.h"
#include "config/dynamic_broker_config.h"
#include "log/log_manager.h"
#include "remote/manager/remote_log_manager.h"
#include "remote/manager/s3_segment_store.h"
#include "remote/metadata/metadata_manager.h"
#include "remote/reader/remote_log_reader.h"
#include "remote/storage/remote_storage.h"
#include "server/remote_reads_port.h"

namespace skiff::server {

// The store's settings cannot be used (a wrong endpoint, bucket, region or
// credentials, a refused permission): the broker does not start.
class TieredStorageStartError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Aiven's rsm.config. keys onto the storage manager's config: the endpoint
// (unset: https://s3.<region>.amazonaws.com), bucket, region, path style,
// credentials (the keys, else AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY/
// AWS_SESSION_TOKEN from the environment), key.prefix, the CA file,
// storage.s3.multipart.upload.part.size (also the size from which a file
// goes as a multipart upload), storage.s3.api.call.attempt.timeout (one
// attempt's connect and I/O bound) and storage.s3.api.call.timeout (bounds
// one attempt too when no attempt timeout is given). Throws
// TieredStorageStartError when no credentials are found.
remote::RemoteStorageConfig make_remote_storage_config(const config::TieredStorageSettings& t);
// The rlmm.config. keys: partitions, retention; the broker id of its records.
remote::MetadataTopicConfig make_metadata_topic_config(const config::TieredStorageSettings& t, int32_t node_id);
// remote.log.manager.* onto the manager (unlimited copy rate: 0).
remote::RemoteLogManagerConfig make_remote_log_manager_config(const config::TieredStorageSettings& t, int32_t node_id);
// remote.log.reader.threads, .max.pending.tasks, the index cache's bound and
// Aiven's chunk.size (the reader's range GETs); a 64 MiB chunk cache.
remote::RemoteReaderConfig make_remote_reader_config(const config::TieredStorageSettings& t);

// Uploads left by a crash older than this are aborted at start.
inline constexpr std::chrono::seconds kStaleUploadAge{3600};

class TieredStorage {
 public:
  // Builds the parts (nothing runs yet). `dynamic` (may be null): the live
  // values of the dynamic keys the reads use (remote.fetch.max.wait.ms, ...).
  TieredStorage(const config::BrokerConfig& config, storage::LogManager& logs,
                const config::DynamicBrokerConfig* dynamic = nullptr);
  ~TieredStorage();  // stop()
  TieredStorage(const TieredStorage&) = delete;
  TieredStorage& operator=(const TieredStorage&) = delete;

  // Probe, clean-up, replay, start (above). Throws TieredStorageStartError
  // on a refused store, std::runtime_error on an unreadable metadata topic.
  void start();
  // The remote log manager's threads end; idempotent.
  void stop();

  // The parts, for the remote log reader (Fetch, ListOffsets) and tests.
  remote::RemoteLogMetadataManager& metadata() { return *metadata_; }
  remote::SegmentStore& segment_store() { return *store_; }
  remote::RemoteStorageManager& storage_manager() { return *rsm_; }
  remote::RemoteLogManager& manager() { return *manager_; }
  remote::RemoteLogReader& reader() { return *reader_; }
  // What api/ reads remote data through (BrokerServices::remote_reads).
  api::RemoteReads& reads() { return *reads_; }

  // /metrics: the manager's counters under Kafka's BrokerTopicMetrics names,
  // the remote size and copy lag per topic, the S3 client's requests and
  // bytes by operation (skiff_remote_s3_*{operation=...}).
  void collect(metrics::Exposition& out, const storage::LogManager& logs) const;

 private:
  void check_store();
  void collect_s3_requests(metrics::Exposition& out) const;
  void collect_reader(metrics::Exposition& out) const;

  std::unique_ptr<remote::RemoteStorageManager> rsm_;
  std::unique_ptr<remote::S3SegmentStore> store_;
  std::unique_ptr<remote::RemoteLogMetadataManager> metadata_;
  std::unique_ptr<remote::RemoteLogManager> manager_;
  std::unique_ptr<remote::RemoteLogReader> reader_;
  std::unique_ptr<RemoteReadsPort> reads_;
  bool started_ = false;
};

}  // namespace skiff::server
