// The values S3 operations take and give (no behaviour), and the parsers of
// S3's XML answers into them (pure functions, any thread; a malformed answer
// is a kProtocol S3Error, never a crash).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"
#include "remote/s3/s3_error.h"

namespace skiff::remote::s3 {

struct ByteRange {
  uint64_t first = 0;
  std::optional<uint64_t> last;  // inclusive; nullopt: to the end
  std::string header() const;    // "bytes=0-9"
};

struct ObjectInfo {
  std::string key;
  uint64_t size = 0;
  std::string etag;  // without quotes
  std::string last_modified;
};

struct GetResult {
  std::string body;
  std::string etag;
  uint64_t total_size = 0;  // of the whole object (Content-Range's total, or the body's size)
};

struct ListPage {
  std::vector<ObjectInfo> objects;
  std::vector<std::string> common_prefixes;
  bool truncated = false;
  std::string next_continuation_token;
};

struct ListOptions {
  std::string prefix;
  std::string continuation_token;
  std::string start_after;
  std::string delimiter;
  int max_keys = 0;  // 0: the server's default (1000)
};

struct DeleteFailure {
  std::string key, code, message;
};

struct DeleteResult {
  std::vector<std::string> deleted;
  std::vector<DeleteFailure> failed;
};

struct PartInfo {
  int part_number = 0;
  std::string etag;  // without quotes
};

struct MultipartUpload {
  std::string key, upload_id, initiated;
};

struct MultipartPage {
  std::vector<MultipartUpload> uploads;
  bool truncated = false;
  std::string next_key_marker, next_upload_id_marker;
};

std::string strip_quotes(std::string_view etag);

Expected<ListPage, S3Error> parse_list_objects_v2(std::string_view xml);
Expected<std::string, S3Error> parse_initiate_multipart(std::string_view xml);  // the UploadId
Expected<std::string, S3Error> parse_complete_multipart(std::string_view xml);  // the ETag
Expected<DeleteResult, S3Error> parse_delete_result(std::string_view xml);
Expected<MultipartPage, S3Error> parse_list_multipart_uploads(std::string_view xml);
// "bytes 0-9/100" -> 100.
std::optional<uint64_t> content_range_total(std::string_view header);

// The DeleteObjects request body for `keys`.
std::string delete_objects_body(const std::vector<std::string>& keys);
// The CompleteMultipartUpload request body.
std::string complete_multipart_body(const std::vector<PartInfo>& parts);

}  // namespace skiff::remote::s3
