#include "remote/s3/s3_types.h"

#include <charconv>

#include "remote/s3/xml.h"

namespace skiff::remote::s3 {
namespace {

S3Error protocol_error(std::string what) {
  S3Error e = transport_error(S3ErrorKind::kProtocol, std::move(what));
  e.retriable = false;
  return e;
}

// The document's root if it is named `root`; an <Error> root (S3 can answer
// 200 with an error body, as CompleteMultipartUpload does) is a service error.
Expected<XmlElement, S3Error> root_named(std::string_view xml, std::string_view root) {
  auto doc = parse_xml(xml);
  if (!doc) return unexpected(protocol_error("malformed XML answer: " + doc.error()));
  if (doc->name == "Error") {
    S3Error e = service_error(200, xml, "");
    e.http_status = 200;
    e.retriable = e.code == "InternalError" || e.code == "SlowDown" || e.retriable;
    return unexpected(std::move(e));
  }
  if (doc->name != root)
    return unexpected(protocol_error("expected <" + std::string(root) + ">, got <" + doc->name + ">"));
  return std::move(*doc);
}

std::optional<uint64_t> to_u64(std::string_view s) {
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

bool is_true(const XmlElement& el, std::string_view name) { return el.child_text(name).value_or("") == "true"; }

}  // namespace

std::string ByteRange::header() const {
  return "bytes=" + std::to_string(first) + "-" + (last ? std::to_string(*last) : std::string());
}

std::string strip_quotes(std::string_view etag) {
  if (etag.size() >= 2 && etag.front() == '"' && etag.back() == '"') etag = etag.substr(1, etag.size() - 2);
  return std::string(etag);
}

Expected<ListPage, S3Error> parse_list_objects_v2(std::string_view xml) {
  auto root = root_named(xml, "ListBucketResult");
  if (!root) return unexpected(std::move(root.error()));
  ListPage page;
  for (const auto* c : root->all("Contents")) {
    ObjectInfo o;
    auto key = c->child_text("Key");
    auto size = to_u64(c->child_text("Size").value_or(""));
    if (!key || !size) return unexpected(protocol_error("ListObjectsV2: <Contents> without Key or Size"));
    o.key = *key;
    o.size = *size;
    o.etag = strip_quotes(c->child_text("ETag").value_or(""));
    o.last_modified = c->child_text("LastModified").value_or("");
    page.objects.push_back(std::move(o));
  }
  for (const auto* p : root->all("CommonPrefixes"))
    page.common_prefixes.push_back(p->child_text("Prefix").value_or(""));
  page.truncated = is_true(*root, "IsTruncated");
  page.next_continuation_token = root->child_text("NextContinuationToken").value_or("");
  if (page.truncated && page.next_continuation_token.empty())
    return unexpected(protocol_error("ListObjectsV2: truncated without NextContinuationToken"));
  return page;
}

Expected<std::string, S3Error> parse_initiate_multipart(std::string_view xml) {
  auto root = root_named(xml, "InitiateMultipartUploadResult");
  if (!root) return unexpected(std::move(root.error()));
  auto id = root->child_text("UploadId");
  if (!id || id->empty()) return unexpected(protocol_error("CreateMultipartUpload: no UploadId"));
  return *id;
}

Expected<std::string, S3Error> parse_complete_multipart(std::string_view xml) {
  auto root = root_named(xml, "CompleteMultipartUploadResult");
  if (!root) return unexpected(std::move(root.error()));
  return strip_quotes(root->child_text("ETag").value_or(""));
}

Expected<DeleteResult, S3Error> parse_delete_result(std::string_view xml) {
  auto root = root_named(xml, "DeleteResult");
  if (!root) return unexpected(std::move(root.error()));
  DeleteResult r;
  for (const auto* d : root->all("Deleted")) r.deleted.push_back(d->child_text("Key").value_or(""));
  for (const auto* e : root->all("Error"))
    r.failed.push_back(
        {e->child_text("Key").value_or(""), e->child_text("Code").value_or(""), e->child_text("Message").value_or("")});
  return r;
}

Expected<MultipartPage, S3Error> parse_list_multipart_uploads(std::string_view xml) {
  auto root = root_named(xml, "ListMultipartUploadsResult");
  if (!root) return unexpected(std::move(root.error()));
  MultipartPage page;
  for (const auto* u : root->all("Upload"))
    page.uploads.push_back({u->child_text("Key").value_or(""), u->child_text("UploadId").value_or(""),
                            u->child_text("Initiated").value_or("")});
  page.truncated = is_true(*root, "IsTruncated");
  page.next_key_marker = root->child_text("NextKeyMarker").value_or("");
  page.next_upload_id_marker = root->child_text("NextUploadIdMarker").value_or("");
  return page;
}

std::optional<uint64_t> content_range_total(std::string_view h) {
  auto slash = h.rfind('/');
  if (!h.starts_with("bytes ") || slash == std::string_view::npos) return std::nullopt;
  return to_u64(h.substr(slash + 1));
}

std::string delete_objects_body(const std::vector<std::string>& keys) {
  std::string out =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Delete xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">";
  out += "<Quiet>false</Quiet>";
  for (const auto& k : keys) out += "<Object><Key>" + xml_escape(k) + "</Key></Object>";
  out += "</Delete>";
  return out;
}

std::string complete_multipart_body(const std::vector<PartInfo>& parts) {
  std::string out =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?><CompleteMultipartUpload "
      "xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">";
  for (const auto& p : parts)
    out += "<Part><PartNumber>" + std::to_string(p.part_number) + "</PartNumber><ETag>\"" + xml_escape(p.etag) +
           "\"</ETag></Part>";
  out += "</CompleteMultipartUpload>";
  return out;
}

}  // namespace skiff::remote::s3
