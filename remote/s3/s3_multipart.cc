// S3Client's multipart upload operations.
#include "common/base64.h"
#include "remote/s3/digest.h"
#include "remote/s3/s3_client.h"

namespace skiff::remote::s3 {

Expected<std::string, S3Error> S3Client::create_multipart_upload(std::string_view key) {
  auto r = execute({"CreateMultipartUpload", "POST", key, {{"uploads", ""}}, {}, {}});
  if (!r) return unexpected(std::move(r.error()));
  return parse_initiate_multipart(r->body);
}

Expected<PartInfo, S3Error> S3Client::upload_part(std::string_view key, std::string_view upload_id, int part_number,
                                                  std::string_view body) {
  const std::string digest = md5(body);
  auto r = execute({"UploadPart",
                    "PUT",
                    key,
                    {{"partNumber", std::to_string(part_number)}, {"uploadId", std::string(upload_id)}},
                    {{"content-md5", base64_encode(digest)}},
                    body});
  if (!r) return unexpected(std::move(r.error()));
  PartInfo p{part_number, strip_quotes(r->header("etag"))};
  if (p.etag != hex_lower(digest)) {
    S3Error e = transport_error(S3ErrorKind::kIntegrity, "part " + std::to_string(part_number) + " ETag " + p.etag +
                                                             " is not the MD5 of the part sent");
    e.operation = "UploadPart";
    e.resource = config_.bucket + "/" + std::string(key);
    return unexpected(std::move(e));
  }
  return p;
}

Expected<std::string, S3Error> S3Client::complete_multipart_upload(std::string_view key, std::string_view upload_id,
                                                                   const std::vector<PartInfo>& parts,
                                                                   const std::vector<std::string>& part_md5s_raw) {
  const std::string body = complete_multipart_body(parts);
  const std::string expected = part_md5s_raw.empty() ? std::string() : multipart_etag(part_md5s_raw);
  auto r = execute({"CompleteMultipartUpload", "POST", key, {{"uploadId", std::string(upload_id)}}, {}, body});
  std::string etag;
  if (r) {
    auto parsed = parse_complete_multipart(r->body);
    if (!parsed) return unexpected(std::move(parsed.error()));
    etag = *parsed;
  } else if (r.error().code == "NoSuchUpload" && !expected.empty()) {
    // A retry after a Complete whose answer was lost: the object says whether it took.
    auto head = head_object(key);
    if (!head || head->etag != expected) return unexpected(std::move(r.error()));
    etag = head->etag;
  } else {
    return unexpected(std::move(r.error()));
  }
  if (!expected.empty() && etag != expected) {
    S3Error e = transport_error(S3ErrorKind::kIntegrity, "completed ETag " + etag + ", expected " + expected);
    e.operation = "CompleteMultipartUpload";
    e.resource = config_.bucket + "/" + std::string(key);
    return unexpected(std::move(e));
  }
  return etag;
}

Expected<void, S3Error> S3Client::abort_multipart_upload(std::string_view key, std::string_view upload_id) {
  auto r = execute({"AbortMultipartUpload", "DELETE", key, {{"uploadId", std::string(upload_id)}}, {}, {}});
  if (!r && r.error().code != "NoSuchUpload") return unexpected(std::move(r.error()));
  return {};
}

Expected<MultipartPage, S3Error> S3Client::list_multipart_uploads(std::string_view prefix, std::string_view key_marker,
                                                                  std::string_view upload_id_marker) {
  NameValues q{{"uploads", ""}};
  if (!prefix.empty()) q.emplace_back("prefix", std::string(prefix));
  if (!key_marker.empty()) q.emplace_back("key-marker", std::string(key_marker));
  if (!upload_id_marker.empty()) q.emplace_back("upload-id-marker", std::string(upload_id_marker));
  auto r = execute({"ListMultipartUploads", "GET", {}, std::move(q), {}, {}});
  if (!r) return unexpected(std::move(r.error()));
  return parse_list_multipart_uploads(r->body);
}

Expected<std::string, S3Error> S3Client::put_object_multipart(std::string_view key, std::string_view body,
                                                              size_t part_size) {
  if (part_size == 0) return unexpected(transport_error(S3ErrorKind::kConfig, "multipart part size 0"));
  if ((body.size() + part_size - 1) / part_size > 10000)
    return unexpected(transport_error(S3ErrorKind::kConfig, "more than S3's 10,000 parts: raise the part size"));
  auto id = create_multipart_upload(key);
  if (!id) return unexpected(std::move(id.error()));
  std::vector<PartInfo> parts;
  std::vector<std::string> md5s;
  for (size_t off = 0, n = 1; off < body.size() || n == 1; off += part_size, ++n) {
    auto chunk = body.substr(off, part_size);
    auto part = upload_part(key, *id, static_cast<int>(n), chunk);
    if (!part) {
      (void)abort_multipart_upload(key, *id);
      return unexpected(std::move(part.error()));
    }
    parts.push_back(*part);
    md5s.push_back(md5(chunk));
  }
  auto etag = complete_multipart_upload(key, *id, parts, md5s);
  if (!etag) (void)abort_multipart_upload(key, *id);
  return etag;
}

}  // namespace skiff::remote::s3
