// RemoteStorageManager: Kafka's RemoteStorageManager (KIP-405) on the S3
// client. It uploads a closed segment with what Kafka's LogSegmentData
// carries, reads back byte ranges of it and its indexes, and deletes it.
// The object layout, the manifest and the consistency argument are in
// docs/tiered-storage.md ("Object layout and consistency"); keys in layout.h,
// the manifest's bytes in manifest.h.
//
// Consistency in short: a copy writes "<base>.log", then "<base>.indexes",
// then "<base>.rsm-manifest", under keys unique to the copy attempt (the
// segment id); the objects count as data only once the caller has recorded
// COPY_SEGMENT_FINISHED after copy returned. A failed copy removes what it
// wrote (best effort); what a crash leaves is deleted by metadata
// (delete_log_segment_data) or, for cut multipart uploads, by
// abort_stale_uploads. Memory: a copy holds one part (or one small object)
// and the index bundle at a time, never the whole segment.
//
// Threads: every method blocks on the object store and may be called from
// several threads at once (the remote log manager's own threads, never a
// network or handler thread).
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "common/expected.h"
#include "remote/metadata/segment_metadata.h"
#include "remote/s3/s3_client.h"
#include "remote/storage/layout.h"
#include "remote/storage/manifest.h"
#include "remote/storage/upload_source.h"

namespace skiff::remote {

// What Kafka's LogSegmentData carries: the segment's files and the leader
// epoch checkpoint's bytes.
struct LogSegmentData {
  std::filesystem::path log, offset_index, time_index;
  std::optional<std::filesystem::path> txn_index, producer_snapshot;
  std::string leader_epoch_checkpoint;  // the checkpoint's bytes
};

struct RemoteStorageError {
  bool retriable = false;
  std::string message;
  // The object (or the segment's manifest) is not in the store: Kafka's
  // RemoteResourceNotFoundException. Never retriable.
  bool not_found = false;
};

template <class T>
using RsmResult = Expected<T, RemoteStorageError>;

struct RemoteStorageConfig {
  s3::S3Config s3;
  std::string key_prefix;                      // prepended to every key as it is (e.g. "tiered/")
  uint64_t part_size = 8ull << 20;             // multipart part size, at least 5 MiB (S3's minimum)
  uint64_t multipart_threshold = 16ull << 20;  // files of this size or more go as multipart uploads
  // The largest index file copy accepts (the bundle is built in memory):
  // Kafka's segment.index.bytes is at most 2 GiB but 10 MiB by default.
  uint64_t max_index_bytes = 64ull << 20;
};

// Why the config cannot be used, or nullopt.
std::optional<std::string> validate(const RemoteStorageConfig& config);

class RemoteStorageManager {
 public:
  // An unusable config (bad endpoint, part size, no credentials) makes every
  // call fail with a non-retriable error naming it (check_bucket first).
  explicit RemoteStorageManager(RemoteStorageConfig config);
  ~RemoteStorageManager();
  RemoteStorageManager(const RemoteStorageManager&) = delete;
  RemoteStorageManager& operator=(const RemoteStorageManager&) = delete;

  // Start-up probe (HeadBucket): a clear message for a wrong endpoint, bucket or credentials.
  RsmResult<void> check_bucket();
  // Uploads the segment; the custom metadata to record (none today).
  RsmResult<std::optional<std::string>> copy_log_segment_data(const RemoteLogSegmentMetadata& m,
                                                              const LogSegmentData& data);
  // Bytes [start_position, end_position] of the segment (end inclusive, as
  // Kafka's; nullopt or past the end: to the end).
  RsmResult<std::string> fetch_log_segment(const RemoteLogSegmentMetadata& m, uint64_t start_position,
                                           std::optional<uint64_t> end_position);
  // The index, checked against the manifest's CRC-32C; nullopt: that index
  // was not uploaded (no transaction index, no producer snapshot).
  RsmResult<std::optional<std::string>> fetch_index(const RemoteLogSegmentMetadata& m, IndexType type);
  // The segment's manifest (fetch_index reads it; tools and tests too).
  RsmResult<Manifest> fetch_manifest(const RemoteLogSegmentMetadata& m);
  // Deletes the segment's objects (manifest first) and aborts multipart
  // uploads left under its keys. Idempotent: missing objects are fine.
  RsmResult<void> delete_log_segment_data(const RemoteLogSegmentMetadata& m);
  // Aborts the multipart uploads under the key prefix initiated more than
  // `older_than` ago (a copy cut by a crash); how many. `older_than` must
  // exceed the longest copy, or a running copy loses its upload (and fails).
  // With an empty key prefix that is every upload in the bucket: give the
  // broker a prefix, or a bucket, of its own.
  RsmResult<int> abort_stale_uploads(std::chrono::seconds older_than);

  const RemoteStorageConfig& config() const { return config_; }
  // The client (tests and tools); null when the config is unusable.
  s3::S3Client* client() { return client_.get(); }

 private:
  RsmResult<void> usable() const;
  RsmResult<std::string> upload(const std::string& key, const UploadSource& source, uint32_t* crc);
  RsmResult<std::string> upload_multipart(const std::string& key, const UploadSource& source,
                                          const std::vector<Part>& parts, uint32_t* crc);
  RsmResult<Manifest> copy_objects(const RemoteLogSegmentMetadata& m, const LogSegmentData& data);

  RemoteStorageConfig config_;
  std::unique_ptr<s3::S3Client> client_;
  std::string config_error_;
};

// An S3 client error as the storage manager reports it: retriable as the
// client says, not_found for a missing key, the message prefixed with `what`.
RemoteStorageError from_s3(const s3::S3Error& e, std::string_view what);
// "2026-12-07T00:21:35.000Z" (S3's Initiated, LastModified) -> unix seconds, or nullopt.
std::optional<int64_t> parse_iso8601(std::string_view text);

}  // namespace skiff::remote
