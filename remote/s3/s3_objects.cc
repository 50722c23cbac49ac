// S3Client's object operations: Put, Get, Head, Delete, DeleteObjects, ListObjectsV2.
#include "common/base64.h"
#include "remote/s3/digest.h"
#include "remote/s3/s3_client.h"

namespace skiff::remote::s3 {
namespace {

bool is_md5_etag(std::string_view etag) {
  return etag.size() == 32 && etag.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

S3Error integrity_error(const char* op, std::string_view key, std::string what) {
  S3Error e = transport_error(S3ErrorKind::kIntegrity, std::move(what));
  e.retriable = true;  // damaged in transit: sending (or reading) again can fix it
  e.operation = op;
  e.resource = std::string(key);
  return e;
}

}  // namespace

Expected<std::string, S3Error> S3Client::put_object(std::string_view key, std::string_view body,
                                                    std::string_view claimed_md5_raw) {
  const std::string digest = md5(body);
  const std::string claimed = claimed_md5_raw.empty() ? digest : std::string(claimed_md5_raw);
  auto r = execute({"PutObject", "PUT", key, {}, {{"content-md5", base64_encode(claimed)}}, body});
  if (!r) return unexpected(std::move(r.error()));
  std::string etag = strip_quotes(r->header("etag"));
  if (is_md5_etag(etag) && etag != hex_lower(digest))
    return unexpected(integrity_error("PutObject", key, "ETag " + etag + " is not the MD5 of the body sent"));
  return etag;
}

Expected<GetResult, S3Error> S3Client::get_object(std::string_view key, const std::optional<ByteRange>& range) {
  NameValues headers;
  if (range) headers.emplace_back("range", range->header());
  auto r = execute({"GetObject", "GET", key, {}, std::move(headers), {}});
  if (!r) return unexpected(std::move(r.error()));
  GetResult g;
  g.etag = strip_quotes(r->header("etag"));
  g.body = std::move(r->body);
  g.total_size = content_range_total(r->header("content-range")).value_or(g.body.size());
  if (!range && is_md5_etag(g.etag) && hex_lower(md5(g.body)) != g.etag)
    return unexpected(integrity_error("GetObject", key, "body does not hash to its ETag " + g.etag));
  return g;
}

Expected<ObjectInfo, S3Error> S3Client::head_object(std::string_view key) {
  auto r = execute({"HeadObject", "HEAD", key, {}, {}, {}});
  if (!r) {
    if (r.error().http_status == 404) r.error().code = "NoSuchKey";
    return unexpected(std::move(r.error()));
  }
  ObjectInfo o;
  o.key = std::string(key);
  o.etag = strip_quotes(r->header("etag"));
  o.last_modified = r->header("last-modified");
  try {
    o.size = std::stoull(r->header("content-length"));
  } catch (const std::exception&) {
    return unexpected(transport_error(S3ErrorKind::kProtocol, "HeadObject: no Content-Length"));
  }
  return o;
}

Expected<void, S3Error> S3Client::delete_object(std::string_view key) {
  auto r = execute({"DeleteObject", "DELETE", key, {}, {}, {}});
  if (!r && r.error().code != "NoSuchKey") return unexpected(std::move(r.error()));
  return {};
}

Expected<DeleteResult, S3Error> S3Client::delete_batch(const std::vector<std::string>& keys) {
  const std::string body = delete_objects_body(keys);
  auto r = execute({"DeleteObjects", "POST", {}, {{"delete", ""}}, {{"content-md5", content_md5(body)}}, body});
  if (!r) return unexpected(std::move(r.error()));
  return parse_delete_result(r->body);
}

Expected<DeleteResult, S3Error> S3Client::delete_objects(const std::vector<std::string>& keys) {
  DeleteResult all;
  for (size_t i = 0; i < keys.size(); i += 1000) {
    std::vector<std::string> batch(keys.begin() + static_cast<long>(i),
                                   keys.begin() + static_cast<long>(std::min(keys.size(), i + 1000)));
    auto r = delete_batch(batch);
    if (!r) return unexpected(std::move(r.error()));
    all.deleted.insert(all.deleted.end(), r->deleted.begin(), r->deleted.end());
    all.failed.insert(all.failed.end(), r->failed.begin(), r->failed.end());
  }
  return all;
}

Expected<ListPage, S3Error> S3Client::list_objects_v2(const ListOptions& o) {
  NameValues q{{"list-type", "2"}};
  if (!o.prefix.empty()) q.emplace_back("prefix", o.prefix);
  if (!o.continuation_token.empty()) q.emplace_back("continuation-token", o.continuation_token);
  if (!o.start_after.empty()) q.emplace_back("start-after", o.start_after);
  if (!o.delimiter.empty()) q.emplace_back("delimiter", o.delimiter);
  if (o.max_keys > 0) q.emplace_back("max-keys", std::to_string(o.max_keys));
  auto r = execute({"ListObjectsV2", "GET", {}, std::move(q), {}, {}});
  if (!r) return unexpected(std::move(r.error()));
  auto page = parse_list_objects_v2(r->body);
  if (!page) {
    S3Error e = std::move(page.error());
    e.operation = "ListObjectsV2";
    return unexpected(std::move(e));
  }
  return page;
}

Expected<std::vector<ObjectInfo>, S3Error> S3Client::list_all(std::string_view prefix, int page_size, int* pages) {
  std::vector<ObjectInfo> out;
  ListOptions o;
  o.prefix = std::string(prefix);
  o.max_keys = page_size;
  for (int n = 1;; ++n) {
    auto page = list_objects_v2(o);
    if (!page) return unexpected(std::move(page.error()));
    out.insert(out.end(), page->objects.begin(), page->objects.end());
    if (pages) *pages = n;
    if (!page->truncated) return out;
    if (page->next_continuation_token == o.continuation_token)
      return unexpected(transport_error(S3ErrorKind::kProtocol, "ListObjectsV2: continuation token did not advance"));
    o.continuation_token = page->next_continuation_token;
  }
}

}  // namespace skiff::remote::s3
