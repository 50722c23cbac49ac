// RemoteStorageManager against an in-memory S3 store on loopback (fake_s3.h
// answering from a map): the order of its writes and deletes (the manifest
// written last, deleted first), multipart parts no larger than the part size
// and each with its Content-MD5, a copy whose part is refused aborting its
// upload and leaving nothing, a corrupt stored index refused, a missing
// manifest reported as not found.
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <mutex>
#include <random>

#include "remote/s3/digest.h"
#include "remote/storage/remote_storage.h"
#include "tests/remote/fake_s3.h"
#include "tests/support/temp_dir.h"

using namespace skiff;
using namespace skiff::remote;
using s3::testing::Answer;
using s3::testing::FakeS3;
using s3::testing::Request;

namespace {

constexpr uint64_t MiB = 1 << 20;

// Whether the query (sorted "a=1&b=2") has the parameter `name`.
bool has_param(const std::string& query, const std::string& name) {
  return ("&" + query).find("&" + name + "=") != std::string::npos;
}

// Just enough of S3 for the storage manager, keys under "/bkt/".
class MemoryStore {
 public:
  std::function<std::optional<Answer>(const Request&)> fail;  // an injected answer, or nullopt
  std::map<std::string, std::string> objects;

  Answer operator()(const Request& r) {
    std::lock_guard lock(mu_);
    if (fail)
      if (auto a = fail(r)) return *a;
    const std::string target(r.target());
    const auto q = target.find('?');
    const std::string path = target.substr(0, q);
    const std::string key = path.size() > 5 ? path.substr(5) : "";  // after "/bkt/"
    const std::string query = q == std::string::npos ? "" : target.substr(q + 1);
    const std::string method(r.method_string());
    if (method == "POST" || has_param(query, "uploadId") || has_param(query, "uploads"))
      return multipart(method, key, query, r.body());
    if (method == "PUT") {
      objects[key] = r.body();
      return etag_answer(s3::hex_lower(s3::md5(r.body())));
    }
    if (method == "DELETE") {
      objects.erase(key);
      return {204, "", {}};
    }
    return get(key, r);
  }

 private:
  static Answer etag_answer(const std::string& etag) { return {200, "", {{"ETag", "\"" + etag + "\""}}}; }
  static Answer missing() { return {404, "<Error><Code>NoSuchKey</Code><Message>none</Message></Error>", {}}; }

  Answer get(const std::string& key, const Request& r) {
    auto it = objects.find(key);
    if (it == objects.end()) return missing();
    const std::string range(r["range"]);
    if (range.empty()) return {200, it->second, {{"ETag", "\"" + s3::hex_lower(s3::md5(it->second)) + "\""}}};
    const uint64_t first = std::stoull(range.substr(6));
    uint64_t last = it->second.size() - 1;
    if (range.back() != '-') last = std::min<uint64_t>(last, std::stoull(range.substr(range.find('-') + 1)));
    return {206,
            it->second.substr(first, last - first + 1),
            {{"Content-Range", "bytes " + std::to_string(first) + "-" + std::to_string(last) + "/" +
                                   std::to_string(it->second.size())}}};
  }

  Answer multipart(const std::string& method, const std::string& key, const std::string& query,
                   const std::string& body) {
    if (has_param(query, "delete")) return batch_delete(body);
    if (has_param(query, "uploads")) {
      if (method == "GET") return list_uploads();
      uploads_[key] = {};
      return {
          200, "<InitiateMultipartUploadResult><UploadId>U-" + key + "</UploadId></InitiateMultipartUploadResult>", {}};
    }
    if (method == "DELETE") {
      uploads_.erase(key);
      return {204, "", {}};
    }
    if (method == "PUT") {
      const auto n = std::stoi(query.substr(query.find("partNumber=") + 11));
      uploads_[key][n] = body;
      return etag_answer(s3::hex_lower(s3::md5(body)));
    }
    std::string whole;
    std::vector<std::string> md5s;
    for (const auto& [n, part] : uploads_[key]) {
      whole += part;
      md5s.push_back(s3::md5(part));
    }
    uploads_.erase(key);
    objects[key] = whole;
    return {200,
            "<CompleteMultipartUploadResult><ETag>\"" + s3::multipart_etag(md5s) +
                "\"</ETag></CompleteMultipartUploadResult>",
            {}};
  }

  Answer batch_delete(const std::string& body) {
    std::string out = "<DeleteResult>";
    for (size_t p = 0; (p = body.find("<Key>", p)) != std::string::npos;) {
      const auto e = body.find("</Key>", p);
      const std::string key = body.substr(p + 5, e - p - 5);
      objects.erase(key);
      out += "<Deleted><Key>" + key + "</Key></Deleted>";
      p = e;
    }
    return {200, out + "</DeleteResult>", {}};
  }

  Answer list_uploads() {
    std::string out = "<ListMultipartUploadsResult><IsTruncated>false</IsTruncated>";
    for (const auto& [key, parts] : uploads_) {
      out += "<Upload><Key>";
      out += key;
      out += "</Key><UploadId>U-";
      out += key;
      out += "</UploadId><Initiated>2020-01-01T00:00:00.000Z</Initiated></Upload>";
    }
    return {200, out + "</ListMultipartUploadsResult>", {}};
  }

  std::mutex mu_;
  std::map<std::string, std::map<int, std::string>> uploads_;
};

struct Fixture {
  MemoryStore store;
  FakeS3 server{[this](const Request& r) { return store(r); }};
  test::TempDir dir{"skiff-rsm-test"};
  RemoteStorageManager rsm{config()};
  LogSegmentData data;
  RemoteLogSegmentMetadata m;

  Fixture() {
    rsm.client()->set_sleep([](std::chrono::milliseconds) {});
    data.log = write("0.log", 11 * MiB + 7);
    data.offset_index = write("0.index", 4096);
    data.time_index = write("0.timeindex", 6000);
    data.txn_index = write("0.txnindex", 102);  // 3 entries of 34 bytes
    data.leader_epoch_checkpoint = "0\n1\n0 0\n";
    m.id.partition = {Uuid::random(), "t", 0};
    m.id.id = Uuid::random();
    m.end_offset = 1000;
  }
  RemoteStorageConfig config() const {
    RemoteStorageConfig c;
    c.s3.endpoint_url = server.endpoint();
    c.s3.bucket = "bkt";
    c.s3.path_style = true;
    c.s3.credentials = {"AKFAKE", "secret", ""};
    c.s3.retry.max_attempts = 2;
    c.key_prefix = "p/";
    c.part_size = 5 * MiB;
    c.multipart_threshold = 5 * MiB;
    return c;
  }
  std::filesystem::path write(const std::string& name, uint64_t size) {
    std::string bytes(size, '\0');
    std::mt19937_64 rng(size);
    for (auto& c : bytes) c = static_cast<char>(rng());
    std::ofstream(dir.path() / name, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(size));
    return dir.path() / name;
  }
  std::string file(const std::filesystem::path& p) const {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  std::vector<std::string> requests() {
    std::vector<std::string> out;
    for (const auto& r : server.seen()) out.push_back(std::string(r.method_string()) + " " + std::string(r.target()));
    return out;
  }
};

// Copies, failing the test with the storage manager's message.
void copy_ok(Fixture& f) {
  auto r = f.rsm.copy_log_segment_data(f.m, f.data);
  if (!r) FAIL(r.error().message);
}

bool ends_with_any(const std::string& s, const char* suffix) { return s.find(suffix) != std::string::npos; }

}  // namespace

TEST_CASE("copy: the log in parts of at most the part size, then the bundle, the manifest last") {
  Fixture f;
  auto r = f.rsm.copy_log_segment_data(f.m, f.data);
  if (!r) FAIL(r.error().message);
  CHECK_FALSE(r->has_value());
  const auto seen = f.server.seen();
  std::vector<std::string> puts;
  for (const auto& q : seen) {
    if (q.method() != boost::beast::http::verb::put) continue;
    puts.emplace_back(q.target());
    CHECK(q.body().size() <= 5 * MiB);
    CHECK(std::string(q["content-md5"]) == s3::content_md5(q.body()));
  }
  REQUIRE(puts.size() == 5);  // 3 parts, the bundle, the manifest
  for (int i = 0; i < 3; ++i) CHECK(ends_with_any(puts[static_cast<size_t>(i)], ".log?partNumber="));
  CHECK(ends_with_any(puts[3], ".indexes"));
  CHECK(ends_with_any(puts[4], ".rsm-manifest"));
  CHECK(f.store.objects.size() == 3);
  auto whole = f.rsm.fetch_log_segment(f.m, 0, std::nullopt);
  REQUIRE(whole);
  CHECK(*whole == f.file(f.data.log));
  auto txn = f.rsm.fetch_index(f.m, IndexType::kTransaction);
  REQUIRE(txn);
  CHECK(**txn == f.file(*f.data.txn_index));
  auto snapshot = f.rsm.fetch_index(f.m, IndexType::kProducerSnapshot);
  REQUIRE(snapshot);
  CHECK_FALSE(snapshot->has_value());
  auto manifest = f.rsm.fetch_manifest(f.m);
  REQUIRE(manifest);
  CHECK(manifest->log_size == 11 * MiB + 7);
  CHECK(manifest->log_crc32c == crc32c_of(f.file(f.data.log)));
}

TEST_CASE("copy: a refused part aborts the upload and leaves nothing in the store") {
  Fixture f;
  f.store.fail = [](const Request& r) -> std::optional<Answer> {
    if (std::string(r.target()).find("partNumber=2") == std::string::npos) return std::nullopt;
    return Answer{400, "<Error><Code>EntityTooLarge</Code><Message>no</Message></Error>", {}};
  };
  auto r = f.rsm.copy_log_segment_data(f.m, f.data);
  REQUIRE_FALSE(r);
  CHECK_FALSE(r.error().retriable);
  CHECK(r.error().message.find("EntityTooLarge") != std::string::npos);
  bool aborted = false;
  for (const auto& q : f.requests()) aborted |= q.starts_with("DELETE") && q.find("uploadId=") != std::string::npos;
  CHECK(aborted);
  CHECK(f.store.objects.empty());
  auto stale = f.rsm.abort_stale_uploads(std::chrono::seconds(0));
  if (!stale) FAIL(stale.error().message);
  CHECK(*stale == 0);
}

TEST_CASE("copy: a missing segment file is a clear local error, nothing uploaded") {
  Fixture f;
  f.data.time_index = f.dir.path() / "gone.timeindex";
  auto r = f.rsm.copy_log_segment_data(f.m, f.data);
  REQUIRE_FALSE(r);
  CHECK_FALSE(r.error().retriable);
  CHECK(r.error().message.find("gone.timeindex") != std::string::npos);
  CHECK(f.store.objects.empty());  // the log went up, then was deleted again
}

TEST_CASE("delete: the manifest first, the attempt's cut uploads aborted, twice is fine") {
  Fixture f;
  copy_ok(f);
  // A cut upload of this attempt (a crash during an earlier copy of its log).
  REQUIRE(f.rsm.client()->create_multipart_upload(object_key("p/", f.m, ObjectKind::kLog)));
  const size_t before = f.requests().size();
  REQUIRE(f.rsm.delete_log_segment_data(f.m));
  auto seen = f.requests();
  REQUIRE(seen.size() > before);
  CHECK(seen[before].starts_with("DELETE"));
  CHECK(ends_with_any(seen[before], ".rsm-manifest"));
  CHECK(f.store.objects.empty());
  CHECK(seen.back().starts_with("DELETE"));  // the cut upload aborted
  CHECK(ends_with_any(seen.back(), ".log?uploadId="));
  CHECK(f.rsm.abort_stale_uploads(std::chrono::seconds(0)).value() == 0);
  REQUIRE(f.rsm.delete_log_segment_data(f.m));
  auto gone = f.rsm.fetch_index(f.m, IndexType::kOffset);
  REQUIRE_FALSE(gone);
  CHECK(gone.error().not_found);
  CHECK_FALSE(gone.error().retriable);
}

TEST_CASE("fetch_index: a corrupt stored index is refused, never served") {
  Fixture f;
  copy_ok(f);
  auto& bundle = f.store.objects[object_key("p/", f.m, ObjectKind::kIndexes)];
  bundle[5000] = static_cast<char>(bundle[5000] ^ 1);  // inside the time index (after 4096 bytes of offset index)
  CHECK(f.rsm.fetch_index(f.m, IndexType::kOffset));
  auto bad = f.rsm.fetch_index(f.m, IndexType::kTimestamp);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("CRC-32C") != std::string::npos);
  f.store.objects[object_key("p/", f.m, ObjectKind::kManifest)] = "SKRM";
  auto truncated = f.rsm.fetch_index(f.m, IndexType::kOffset);
  REQUIRE_FALSE(truncated);
  CHECK_FALSE(truncated.error().retriable);
  CHECK(truncated.error().message.find("manifest") != std::string::npos);
}
