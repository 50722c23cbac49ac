#include "server/tiered_storage.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

#include "remote/s3/credentials.h"

namespace skiff::server {

remote::RemoteStorageConfig make_remote_storage_config(const config::TieredStorageSettings& t) {
  remote::RemoteStorageConfig c;
  const auto& s = t.s3;
  c.s3.endpoint_url = s.endpoint_url.empty() ? fmt::format("https://s3.{}.amazonaws.com", s.region) : s.endpoint_url;
  c.s3.bucket = s.bucket;
  c.s3.region = s.region;
  c.s3.path_style = s.path_style;
  auto credentials = remote::s3::resolve_credentials(s.access_key_id, s.secret_access_key);
  if (!credentials)
    throw TieredStorageStartError(
        "tiered storage: no S3 credentials: set rsm.config.storage.aws.access.key.id and "
        "rsm.config.storage.aws.secret.access.key, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY");
  c.s3.credentials = std::move(*credentials);
  c.s3.http.ca_file = s.ca_file;
  const auto attempt = s.api_call_attempt_timeout_ms ? s.api_call_attempt_timeout_ms : s.api_call_timeout_ms;
  if (attempt && *attempt > 0) {
    c.s3.http.io_timeout = std::chrono::milliseconds(*attempt);
    c.s3.http.connect_timeout = std::min(c.s3.http.connect_timeout, std::chrono::milliseconds(*attempt));
  }
  c.key_prefix = t.key_prefix;
  c.part_size = static_cast<uint64_t>(s.multipart_part_size);
  c.multipart_threshold = c.part_size;  // a file of at most one part goes as one PUT
  return c;
}

remote::MetadataTopicConfig make_metadata_topic_config(const config::TieredStorageSettings& t, int32_t node_id) {
  remote::MetadataTopicConfig c;
  c.partitions = t.metadata_topic_partitions;
  c.retention_ms = t.metadata_topic_retention_ms;
  c.broker_id = node_id;
  return c;
}

remote::RemoteLogManagerConfig make_remote_log_manager_config(const config::TieredStorageSettings& t, int32_t node_id) {
  remote::RemoteLogManagerConfig c;
  c.broker_id = node_id;
  c.task_interval_ms = t.task_interval_ms;
  c.copier_threads = t.copier_threads;
  c.expiration_threads = t.expiration_threads;
  c.copy_max_bytes_per_second = t.copy_max_bytes_per_second == config::TieredStorageSettings::kUnlimited
                                    ? 0
                                    : static_cast<double>(t.copy_max_bytes_per_second);
  c.retry_backoff_ms = t.task_retry_backoff_ms;
  c.retry_backoff_max_ms = t.task_retry_backoff_max_ms;
  return c;
}

remote::RemoteReaderConfig make_remote_reader_config(const config::TieredStorageSettings& t) {
  remote::RemoteReaderConfig c;
  c.threads = t.reader_threads;
  c.max_pending = t.reader_max_pending_tasks;
  c.index_cache_bytes = static_cast<uint64_t>(std::max<int64_t>(t.index_file_cache_total_size_bytes, 1));
  c.chunk_bytes = static_cast<uint64_t>(std::max<int32_t>(t.chunk_size, 1));
  return c;
}

TieredStorage::TieredStorage(const config::BrokerConfig& config, storage::LogManager& logs,
                             const config::DynamicBrokerConfig* dynamic) {
  const auto& t = config.tiered_storage;
  rsm_ = std::make_unique<remote::RemoteStorageManager>(make_remote_storage_config(t));
  store_ = std::make_unique<remote::S3SegmentStore>(*rsm_);
  metadata_ = std::make_unique<remote::RemoteLogMetadataManager>(logs, make_metadata_topic_config(t, config.node_id));
  manager_ = std::make_unique<remote::RemoteLogManager>(logs, *metadata_, *store_,
                                                        make_remote_log_manager_config(t, config.node_id));
  reader_ = std::make_unique<remote::RemoteLogReader>(*metadata_, *store_, make_remote_reader_config(t));
  reads_ = std::make_unique<RemoteReadsPort>(*reader_, config, dynamic);
}

TieredStorage::~TieredStorage() { stop(); }

// A refused store stops the start; an unreachable one is logged (copies
// retry each tick until it answers).
void TieredStorage::check_store() {
  const auto& c = rsm_->config();
  auto ok = rsm_->check_bucket();
  if (!ok && !ok.error().retriable)
    throw TieredStorageStartError(
        fmt::format("tiered storage: bucket {} at {}: {}", c.s3.bucket, c.s3.endpoint_url, ok.error().message));
  if (!ok) {
    spdlog::error(
        "tiered storage: the object store is not reachable now ({}); the broker runs on, segments stay local and "
        "their copies are retried every remote.log.manager.task.interval.ms",
        ok.error().message);
    return;
  }
  spdlog::info("tiered storage: bucket {} at {} answers (key prefix '{}')", c.s3.bucket, c.s3.endpoint_url,
               c.key_prefix);
  auto aborted = rsm_->abort_stale_uploads(kStaleUploadAge);
  if (!aborted)
    spdlog::warn("tiered storage: the clean-up of cut multipart uploads failed: {}", aborted.error().message);
  else if (*aborted > 0)
    spdlog::info("tiered storage: aborted {} multipart upload(s) cut by a crash (older than {} s)", *aborted,
                 kStaleUploadAge.count());
}

void TieredStorage::start() {
  if (started_) return;
  check_store();
  metadata_->start();
  const auto replay = metadata_->replay_stats();
  spdlog::info("tiered storage: {} replayed: {} record(s), {} skipped", remote::kRemoteLogMetadataTopic, replay.records,
               replay.skipped);
  reader_->start();
  manager_->start();
  started_ = true;
}

void TieredStorage::stop() {
  if (!started_) return;
  started_ = false;
  manager_->stop();
  reader_->stop();
}

namespace {

// One metric family with its one unlabelled sample.
void unlabelled(metrics::Exposition& out, const char* name, const char* type, const char* help, int64_t value) {
  out.family(name, type, help);
  out.sample(name, {}, {}, static_cast<double>(value));
}

}  // namespace

// The remote log reader's counters: Kafka's RemoteFetch* names, and the
// pool's and caches' own.
void TieredStorage::collect_reader(metrics::Exposition& out) const {
  const auto& r = reader_->stats();
  auto sample = [&out](const char* name, const char* type, const char* help, int64_t value) {
    unlabelled(out, name, type, help, value);
  };
  sample("kafka_server_brokertopicmetrics_remotefetchbytes_total", "counter",
         "Record bytes read from the object store for fetches.", r.bytes_returned.load());
  sample("kafka_server_brokertopicmetrics_remotefetchrequests_total", "counter", "Remote reads (fetches).",
         r.reads.load());
  sample("kafka_server_brokertopicmetrics_remotefetcherrors_total", "counter", "Remote reads that failed.",
         r.read_errors.load());
  sample("skiff_remote_reader_store_bytes_total", "counter", "Segment bytes fetched from the object store (chunks).",
         r.bytes_fetched.load());
  sample("skiff_remote_reader_chunk_cache_hits_total", "counter", "Chunk cache hits.", r.chunk_hits.load());
  sample("skiff_remote_reader_chunk_cache_misses_total", "counter", "Chunk cache misses (range GETs).",
         r.chunk_misses.load());
  sample("skiff_remote_reader_index_cache_hits_total", "counter", "Remote index cache hits.", r.index_hits.load());
  sample("skiff_remote_reader_index_cache_misses_total", "counter", "Remote index cache misses.",
         r.index_misses.load());
  sample("skiff_remote_reader_chunk_cache_bytes", "gauge", "Bytes in the chunk cache.", r.chunk_cache_bytes.load());
  sample("skiff_remote_reader_index_cache_bytes", "gauge", "Bytes in the remote index cache.",
         r.index_cache_bytes.load());
  sample("skiff_remote_reader_rejected_total", "counter", "Reads refused: the reader queue was full.",
         r.rejected.load());
  sample("skiff_remote_reader_timestamp_lookups_total", "counter", "ListOffsets lookups in remote storage.",
         r.timestamp_lookups.load());
}

void TieredStorage::collect(metrics::Exposition& out, const storage::LogManager& logs) const {
  const auto& s = manager_->stats();
  auto counter = [&out](const char* name, const char* help, int64_t value) {
    unlabelled(out, name, "counter", help, value);
  };
  const auto copied = s.segments_copied.load(), copy_errors = s.copy_errors.load();
  const auto deleted = s.segments_deleted.load(), delete_errors = s.delete_errors.load();
  counter("kafka_server_brokertopicmetrics_remotecopybytes_total", "Segment bytes copied to the object store.",
          s.bytes_copied.load());
  counter("kafka_server_brokertopicmetrics_remotecopyrequests_total", "Segment copies attempted.",
          copied + copy_errors);
  counter("kafka_server_brokertopicmetrics_remotecopyerrors_total", "Segment copies that failed.", copy_errors);
  counter("kafka_server_brokertopicmetrics_remotedeleterequests_total", "Remote segment deletions attempted.",
          deleted + delete_errors);
  counter("kafka_server_brokertopicmetrics_remotedeleteerrors_total", "Remote segment deletions that failed.",
          delete_errors);
  counter("skiff_remote_delete_bytes_total", "Segment bytes deleted from the object store.", s.bytes_deleted.load());
  counter("skiff_remote_metadata_errors_total", "Writes to __remote_log_metadata that failed.",
          s.metadata_errors.load());
  collect_reader(out);

  collect_s3_requests(out);

  std::map<std::string, std::pair<double, double>> by_topic;  // topic -> (remote bytes, copy lag bytes)
  for (const auto& tp : metadata_->partitions()) {
    double bytes = 0;
    for (const auto& seg : metadata_->segments(tp))
      if (seg.state == remote::SegmentState::kCopyFinished) bytes += seg.segment_size_in_bytes;
    if (auto topic = logs.topic_by_id(tp.topic_id)) by_topic[topic->name].first += bytes;
  }
  for (const auto& t : logs.list_topics())
    for (int32_t p = 0; p < t.partitions; ++p)
      if (auto log = logs.get_log(t.name, p); log && log->config()->tiering_active())
        by_topic[t.name].second += static_cast<double>(log->local_only_size_bytes());
  out.family("kafka_server_brokertopicmetrics_remotelogsizebytes", "gauge",
             "Bytes of the topic's segments in the object store (COPY_SEGMENT_FINISHED).");
  for (const auto& [topic, v] : by_topic)
    out.sample("kafka_server_brokertopicmetrics_remotelogsizebytes", {"topic"}, {topic}, v.first);
  out.family("kafka_server_brokertopicmetrics_remotecopylagbytes", "gauge",
             "Bytes of the topic's local segments above its highest remote offset (the active segment included).");
  for (const auto& [topic, v] : by_topic)
    out.sample("kafka_server_brokertopicmetrics_remotecopylagbytes", {"topic"}, {topic}, v.second);
}

// The S3 client's requests by operation (every attempt, retries included)
// and body bytes each way: what the store bills, per GB moved.
void TieredStorage::collect_s3_requests(metrics::Exposition& out) const {
  const auto* client = rsm_->client();
  if (client == nullptr) return;
  const auto counts = client->counters().snapshot();
  auto family = [&](const char* name, const char* help, int64_t remote::s3::S3OperationCounts::*field) {
    out.family(name, "counter", help);
    for (const auto& c : counts)
      out.sample(name, {"operation"}, {std::string(c.operation)}, static_cast<double>(c.*field));
  };
  family("skiff_remote_s3_requests_total", "S3 requests sent (every attempt, retries included), by operation.",
         &remote::s3::S3OperationCounts::requests);
  family("skiff_remote_s3_request_errors_total", "S3 requests that failed (network error or non-2xx answer).",
         &remote::s3::S3OperationCounts::errors);
  family("skiff_remote_s3_sent_bytes_total", "Request body bytes sent to the object store, by operation.",
         &remote::s3::S3OperationCounts::bytes_sent);
  family("skiff_remote_s3_received_bytes_total", "Response body bytes received from the object store, by operation.",
         &remote::s3::S3OperationCounts::bytes_received);
}

}  // namespace skiff::server
