// RemoteStorageManager: deleting a segment's objects, and aborting the
// multipart uploads a crash cut.
#include <ctime>

#include "remote/storage/remote_storage.h"

namespace skiff::remote {

namespace {

// Every upload under `prefix`, following the listing's markers.
Expected<std::vector<s3::MultipartUpload>, s3::S3Error> list_uploads(s3::S3Client& c, const std::string& prefix) {
  std::vector<s3::MultipartUpload> out;
  std::string key_marker, id_marker;
  for (;;) {
    auto page = c.list_multipart_uploads(prefix, key_marker, id_marker);
    if (!page) return unexpected(std::move(page.error()));
    for (auto& u : page->uploads)
      if (u.key.starts_with(prefix)) out.push_back(std::move(u));
    if (!page->truncated || page->next_key_marker.empty()) return out;
    key_marker = page->next_key_marker;
    id_marker = page->next_upload_id_marker;
  }
}

bool digits(std::string_view s, size_t at, size_t n, int& out) {
  if (s.size() < at + n) return false;
  out = 0;
  for (size_t i = at; i < at + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

}  // namespace

std::optional<int64_t> parse_iso8601(std::string_view s) {
  // "YYYY-MM-DDTHH:MM:SS", then anything (a fraction, "Z"): S3 answers in UTC.
  struct Field {
    size_t at, length;
    int min, max;
  };
  static constexpr Field kFields[] = {{0, 4, 1970, 9999}, {5, 2, 1, 12},  {8, 2, 1, 31},
                                      {11, 2, 0, 23},     {14, 2, 0, 59}, {17, 2, 0, 60}};
  if (s.size() < 19 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != ' ') || s[13] != ':' || s[16] != ':')
    return std::nullopt;
  int v[6] = {};
  for (size_t i = 0; i < 6; ++i)
    if (!digits(s, kFields[i].at, kFields[i].length, v[i]) || v[i] < kFields[i].min || v[i] > kFields[i].max)
      return std::nullopt;
  std::tm tm{};
  tm.tm_year = v[0] - 1900;
  tm.tm_mon = v[1] - 1;
  tm.tm_mday = v[2];
  tm.tm_hour = v[3];
  tm.tm_min = v[4];
  tm.tm_sec = v[5];
  return static_cast<int64_t>(timegm(&tm));
}

RsmResult<void> RemoteStorageManager::delete_log_segment_data(const RemoteLogSegmentMetadata& m) {
  if (auto ok = usable(); !ok) return ok;
  const std::string what = "delete of segment " + m.id.id.to_string();
  // The manifest first: a half-deleted segment is never taken for a whole one.
  auto r = client_->delete_object(object_key(config_.key_prefix, m, ObjectKind::kManifest));
  if (!r) return unexpected(from_s3(r.error(), what));
  auto batch = client_->delete_objects(
      {object_key(config_.key_prefix, m, ObjectKind::kLog), object_key(config_.key_prefix, m, ObjectKind::kIndexes)});
  if (!batch) return unexpected(from_s3(batch.error(), what));
  for (const auto& f : batch->failed) {
    if (f.code == "NoSuchKey") continue;
    return unexpected(RemoteStorageError{s3::retriable_code(f.code, 0),
                                         what + ": " + f.key + ": " + f.code + ": " + f.message, false});
  }
  // Uploads a crash cut under this attempt's keys.
  auto uploads = list_uploads(*client_, segment_key_base(config_.key_prefix, m));
  if (!uploads) return unexpected(from_s3(uploads.error(), what));
  for (const auto& u : *uploads) {
    auto a = client_->abort_multipart_upload(u.key, u.upload_id);
    if (!a) return unexpected(from_s3(a.error(), what));
  }
  return {};
}

RsmResult<int> RemoteStorageManager::abort_stale_uploads(std::chrono::seconds older_than) {
  if (auto ok = usable(); !ok) return unexpected(std::move(ok.error()));
  auto uploads = list_uploads(*client_, config_.key_prefix);
  if (!uploads) return unexpected(from_s3(uploads.error(), "listing multipart uploads"));
  const int64_t cutoff = static_cast<int64_t>(std::time(nullptr)) - older_than.count();
  int aborted = 0;
  for (const auto& u : *uploads) {
    // An unreadable time is taken as old: nothing else would ever clean it.
    const auto initiated = parse_iso8601(u.initiated);
    if (initiated && *initiated > cutoff) continue;
    auto a = client_->abort_multipart_upload(u.key, u.upload_id);
    if (!a) return unexpected(from_s3(a.error(), "aborting the multipart upload of " + u.key));
    ++aborted;
  }
  return aborted;
}

}  // namespace skiff::remote
