// RemoteStorageManager: construction, the bucket probe, fetches, deletes
// and the cleanup of cut uploads (the copy is in remote_storage_copy.cc).
#include "remote/storage/remote_storage.h"

#include <ctime>

namespace skiff::remote {

namespace {

RemoteStorageError error(std::string message, bool retriable = false) {
  return RemoteStorageError{retriable, std::move(message), false};
}

std::string segment_name(const RemoteLogSegmentMetadata& m) {
  return m.id.partition.topic + "-" + std::to_string(m.id.partition.partition) + " segment " + m.id.id.to_string() +
         " (offsets " + std::to_string(m.start_offset) + ".." + std::to_string(m.end_offset) + ")";
}

// What an operator should check for a failed bucket probe.
std::string probe_hint(const s3::S3Error& e, const s3::S3Config& c) {
  const std::string bucket = "bucket '" + c.bucket + "'";
  if (e.kind == s3::S3ErrorKind::kConnection || e.kind == s3::S3ErrorKind::kTimeout)
    return "cannot reach the object store at " + c.endpoint_url + " (wrong endpoint, or the store is down)";
  if (e.kind == s3::S3ErrorKind::kConfig) return "the S3 configuration is unusable";
  if (e.code == "NoSuchBucket") return bucket + " does not exist at " + c.endpoint_url;
  if (e.code == "InvalidAccessKeyId" || e.code == "XAdminUserNotFound")
    return "the access key id is not known to the object store";
  if (e.code == "SignatureDoesNotMatch") return "the secret access key is wrong (the request signature is refused)";
  if (e.code == "AccessDenied") return "access to " + bucket + " is denied to these credentials";
  return "the object store refused to list " + bucket;
}

}  // namespace

RemoteStorageError from_s3(const s3::S3Error& e, std::string_view what) {
  RemoteStorageError r;
  r.retriable = e.retriable;
  r.not_found = e.code == "NoSuchKey" || (e.http_status == 404 && e.code != "NoSuchBucket" &&
                                          e.code != "NoSuchUpload" && e.code != "XAdminUserNotFound");
  if (r.not_found) r.retriable = false;
  r.message = std::string(what) + ": " + e.describe();
  return r;
}

std::optional<std::string> validate(const RemoteStorageConfig& c) {
  if (c.part_size < kMinPartSize || c.part_size > kMaxPartSize)
    return "remote storage part size " + std::to_string(c.part_size) + " is outside S3's 5 MiB .. 5 GiB";
  if (c.max_index_bytes == 0) return std::string("remote storage max index bytes is 0");
  return std::nullopt;
}

RemoteStorageManager::RemoteStorageManager(RemoteStorageConfig config) : config_(std::move(config)) {
  if (auto bad = validate(config_)) {
    config_error_ = *bad;
    return;
  }
  auto client = s3::S3Client::create(config_.s3);
  if (!client) {
    config_error_ = "remote storage configuration: " + client.error().describe();
    return;
  }
  client_ = std::move(*client);
}

RemoteStorageManager::~RemoteStorageManager() = default;

RsmResult<void> RemoteStorageManager::usable() const {
  if (client_) return {};
  return unexpected(error(config_error_));
}

RsmResult<void> RemoteStorageManager::check_bucket() {
  if (auto ok = usable(); !ok) return ok;
  s3::ListOptions probe;
  probe.prefix = config_.key_prefix;
  probe.max_keys = 1;
  auto r = client_->list_objects_v2(probe);
  if (r) return {};
  auto e = from_s3(r.error(), "remote storage check: " + probe_hint(r.error(), config_.s3));
  e.not_found = false;
  return unexpected(std::move(e));
}

RsmResult<std::string> RemoteStorageManager::fetch_log_segment(const RemoteLogSegmentMetadata& m,
                                                               uint64_t start_position,
                                                               std::optional<uint64_t> end_position) {
  if (auto ok = usable(); !ok) return unexpected(std::move(ok.error()));
  if (end_position && *end_position < start_position)
    return unexpected(error("fetch of " + segment_name(m) + ": end position " + std::to_string(*end_position) +
                            " before start position " + std::to_string(start_position)));
  const std::string key = object_key(config_.key_prefix, m, ObjectKind::kLog);
  auto r = client_->get_object(key, s3::ByteRange{start_position, end_position});
  if (!r) {
    if (r.error().code == "InvalidRange")
      return unexpected(error("fetch of " + segment_name(m) + ": start position " + std::to_string(start_position) +
                              " is past the segment's end"));
    return unexpected(from_s3(r.error(), "fetch of " + segment_name(m)));
  }
  return std::move(r->body);
}

RsmResult<Manifest> RemoteStorageManager::fetch_manifest(const RemoteLogSegmentMetadata& m) {
  if (auto ok = usable(); !ok) return unexpected(std::move(ok.error()));
  auto r = client_->get_object(object_key(config_.key_prefix, m, ObjectKind::kManifest));
  if (!r) {
    auto e = from_s3(r.error(), "manifest of " + segment_name(m));
    if (e.not_found) e.message = segment_name(m) + " has no manifest: it was never fully copied, or was deleted";
    return unexpected(std::move(e));
  }
  auto manifest = decode_manifest(r->body);
  if (!manifest) return unexpected(error("the manifest of " + segment_name(m) + " is unusable: " + manifest.error()));
  if (manifest->segment_id != m.id.id || manifest->topic_id != m.id.partition.topic_id ||
      manifest->partition != m.id.partition.partition || manifest->start_offset != m.start_offset)
    return unexpected(error("the manifest of " + segment_name(m) + " describes another segment"));
  return std::move(*manifest);
}

RsmResult<std::optional<std::string>> RemoteStorageManager::fetch_index(const RemoteLogSegmentMetadata& m,
                                                                        IndexType type) {
  auto manifest = fetch_manifest(m);
  if (!manifest) return unexpected(std::move(manifest.error()));
  const ManifestIndex* entry = manifest->find(type);
  if (entry == nullptr) return std::optional<std::string>();
  if (entry->size == 0) return std::optional<std::string>(std::string());
  const std::string key = object_key(config_.key_prefix, m, ObjectKind::kIndexes);
  const std::string what = "the " + std::string(index_name(type)) + " index of " + segment_name(m);
  // A mismatch is read once more (a fault on the way); twice: the stored bytes are bad.
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto r = client_->get_object(key, s3::ByteRange{entry->offset, entry->offset + entry->size - 1});
    if (!r) return unexpected(from_s3(r.error(), what));
    if (r->body.size() == entry->size && crc32c_of(r->body) == entry->crc32c)
      return std::optional<std::string>(std::move(r->body));
  }
  return unexpected(error(what + " does not match its manifest's size and CRC-32C (corrupt object)"));
}

}  // namespace skiff::remote
