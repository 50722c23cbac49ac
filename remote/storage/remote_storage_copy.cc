// RemoteStorageManager::copy_log_segment_data: the log, then the index
// bundle, then the manifest; large objects as multipart uploads streamed a
// part at a time from the file.
#include <fstream>
#include <iterator>

#include "remote/s3/digest.h"
#include "remote/storage/remote_storage.h"

namespace skiff::remote {

namespace {

RemoteStorageError local_error(std::string message) { return RemoteStorageError{false, std::move(message), false}; }

// Reads a (small) index file whole, refusing one larger than `limit`.
Expected<std::string, std::string> read_index_file(const std::filesystem::path& p, uint64_t limit) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(p, ec);
  if (ec) return unexpected("cannot read " + p.string() + ": " + ec.message());
  if (size > limit)
    return unexpected(p.string() + " has " + std::to_string(size) + " bytes, more than the " + std::to_string(limit) +
                      " an index may have");
  std::ifstream in(p, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) return unexpected("cannot read " + p.string());
  return bytes;
}

// The index bundle: the files in IndexType order, recorded in the manifest.
Expected<void, std::string> build_bundle(const LogSegmentData& d, uint64_t limit, UploadSource& bundle,
                                         Manifest& manifest) {
  auto add = [&](IndexType type, std::string bytes) {
    manifest.indexes.push_back({type, bundle.size(), bytes.size(), crc32c_of(bytes)});
    bundle.add_bytes(std::move(bytes));
  };
  const std::pair<IndexType, const std::filesystem::path*> files[] = {
      {IndexType::kOffset, &d.offset_index},
      {IndexType::kTimestamp, &d.time_index},
      {IndexType::kProducerSnapshot, d.producer_snapshot ? &*d.producer_snapshot : nullptr},
      {IndexType::kTransaction, d.txn_index ? &*d.txn_index : nullptr},
  };
  for (const auto& f : files) {
    if (f.second == nullptr) continue;
    auto bytes = read_index_file(*f.second, limit);
    if (!bytes) return unexpected(std::move(bytes.error()));
    add(f.first, std::move(*bytes));
  }
  add(IndexType::kLeaderEpoch, d.leader_epoch_checkpoint);
  manifest.indexes_size = bundle.size();
  return {};
}

}  // namespace

RsmResult<std::string> RemoteStorageManager::upload(const std::string& key, const UploadSource& source, uint32_t* crc) {
  const auto parts = plan_parts(source.size(), config_.part_size, config_.multipart_threshold);
  if (!parts.empty()) return upload_multipart(key, source, parts, crc);
  std::string body;
  if (auto ok = source.read(0, source.size(), body); !ok) return unexpected(local_error(ok.error()));
  if (crc != nullptr) *crc = crc32c_of(body);
  auto etag = client_->put_object(key, body);
  if (!etag) return unexpected(from_s3(etag.error(), "upload of " + key));
  return std::move(*etag);
}

RsmResult<std::string> RemoteStorageManager::upload_multipart(const std::string& key, const UploadSource& source,
                                                              const std::vector<Part>& parts, uint32_t* crc) {
  auto id = client_->create_multipart_upload(key);
  if (!id) return unexpected(from_s3(id.error(), "upload of " + key));
  std::vector<s3::PartInfo> done;
  std::vector<std::string> md5s;
  std::string body;
  uint32_t running = 0;
  auto fail = [&](RemoteStorageError e) -> RsmResult<std::string> {
    (void)client_->abort_multipart_upload(key, *id);
    return unexpected(std::move(e));
  };
  for (size_t i = 0; i < parts.size(); ++i) {
    if (auto ok = source.read(parts[i].offset, parts[i].size, body); !ok) return fail(local_error(ok.error()));
    running = crc32c_of(body, running);
    auto part = client_->upload_part(key, *id, static_cast<int>(i + 1), body);
    if (!part) return fail(from_s3(part.error(), "upload of " + key + " part " + std::to_string(i + 1)));
    done.push_back(std::move(*part));
    md5s.push_back(s3::md5(body));
  }
  auto etag = client_->complete_multipart_upload(key, *id, done, md5s);
  if (!etag) return fail(from_s3(etag.error(), "completing the upload of " + key));
  if (crc != nullptr) *crc = running;
  return std::move(*etag);
}

RsmResult<Manifest> RemoteStorageManager::copy_objects(const RemoteLogSegmentMetadata& m, const LogSegmentData& d) {
  Manifest manifest;
  manifest.topic_id = m.id.partition.topic_id;
  manifest.partition = m.id.partition.partition;
  manifest.segment_id = m.id.id;
  manifest.start_offset = m.start_offset;
  manifest.end_offset = m.end_offset;
  {
    UploadSource log;
    if (auto ok = log.add_file(d.log); !ok) return unexpected(local_error(ok.error()));
    manifest.log_size = log.size();
    auto r = upload(object_key(config_.key_prefix, m, ObjectKind::kLog), log, &manifest.log_crc32c);
    if (!r) return unexpected(std::move(r.error()));
  }
  UploadSource bundle;
  if (auto ok = build_bundle(d, config_.max_index_bytes, bundle, manifest); !ok)
    return unexpected(local_error(ok.error()));
  auto r = upload(object_key(config_.key_prefix, m, ObjectKind::kIndexes), bundle, nullptr);
  if (!r) return unexpected(std::move(r.error()));
  // Last: the manifest says every object before it is complete.
  auto etag = client_->put_object(object_key(config_.key_prefix, m, ObjectKind::kManifest), encode_manifest(manifest));
  if (!etag) return unexpected(from_s3(etag.error(), "upload of the manifest"));
  return manifest;
}

RsmResult<std::optional<std::string>> RemoteStorageManager::copy_log_segment_data(const RemoteLogSegmentMetadata& m,
                                                                                  const LogSegmentData& data) {
  if (auto ok = usable(); !ok) return unexpected(std::move(ok.error()));
  if (m.start_offset < 0 || m.end_offset < m.start_offset)
    return unexpected(local_error("copy of segment " + m.id.id.to_string() + ": bad offsets"));
  auto r = copy_objects(m, data);
  if (!r) {
    // What this attempt wrote goes (best effort; the caller's delete by metadata finishes it).
    (void)delete_log_segment_data(m);
    r.error().message = "copy of segment " + m.id.id.to_string() + ": " + r.error().message;
    return unexpected(std::move(r.error()));
  }
  return std::optional<std::string>();
}

}  // namespace skiff::remote
