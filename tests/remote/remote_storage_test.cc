// remote/storage without a server: the object keys, the manifest's encoding
// (truncated and corrupt manifests refused, never a crash), multipart part
// planning, the upload source's reads, S3 times, the config's checks and
// the S3 errors' mapping. Against real servers: tests/integration/test_remote_storage.py.
#include "remote/storage/remote_storage.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <limits>

#include "remote/storage/layout.h"
#include "remote/storage/manifest.h"
#include "remote/storage/upload_source.h"
#include "tests/support/temp_dir.h"

using namespace skiff;
using namespace skiff::remote;

namespace {

RemoteLogSegmentMetadata segment(int64_t start = 1234) {
  RemoteLogSegmentMetadata m;
  m.id.partition.topic = "orders";
  m.id.partition.topic_id = *Uuid::parse("AAAAAAAAAAAAAAAAAAAAAQ");
  m.id.partition.partition = 7;
  m.id.id = *Uuid::parse("3uTlLaEvRkKVtY1oMMWOiw");
  m.start_offset = start;
  m.end_offset = start > std::numeric_limits<int64_t>::max() - 99 ? start : start + 99;
  return m;
}

Manifest sample_manifest() {
  Manifest m;
  m.topic_id = Uuid::random();
  m.partition = 3;
  m.segment_id = Uuid::random();
  m.start_offset = 100;
  m.end_offset = 199;
  m.log_size = 1 << 20;
  m.log_crc32c = 0xdeadbeef;
  m.indexes_size = 300;
  m.indexes = {{IndexType::kOffset, 0, 80, 1},
               {IndexType::kTimestamp, 80, 120, 2},
               {IndexType::kProducerSnapshot, 200, 90, 3},
               {IndexType::kLeaderEpoch, 290, 10, 4}};
  return m;
}

}  // namespace

TEST_CASE("remote storage keys: <prefix><topic>-<id>/<partition>/<20-digit offset>-<segment id>.<kind>") {
  auto m = segment();
  CHECK(object_key("tiered/", m, ObjectKind::kLog) ==
        "tiered/orders-AAAAAAAAAAAAAAAAAAAAAQ/7/00000000000000001234-3uTlLaEvRkKVtY1oMMWOiw.log");
  CHECK(object_key("", m, ObjectKind::kIndexes) ==
        "orders-AAAAAAAAAAAAAAAAAAAAAQ/7/00000000000000001234-3uTlLaEvRkKVtY1oMMWOiw.indexes");
  CHECK(object_key("p-", m, ObjectKind::kManifest) ==
        "p-orders-AAAAAAAAAAAAAAAAAAAAAQ/7/00000000000000001234-3uTlLaEvRkKVtY1oMMWOiw.rsm-manifest");
  CHECK(partition_prefix("x/", m.id.partition) == "x/orders-AAAAAAAAAAAAAAAAAAAAAQ/7/");
  // Keys sort as offsets do, and two attempts at one segment never share a key.
  CHECK(object_key("", segment(9), ObjectKind::kLog) < object_key("", segment(10), ObjectKind::kLog));
  auto other = m;
  other.id.id = Uuid::random();
  CHECK(segment_key_base("", other) != segment_key_base("", m));
  CHECK(object_key("", segment(INT64_MAX), ObjectKind::kLog).find("/09223372036854775807-") != std::string::npos);
}

TEST_CASE("multipart part planning") {
  constexpr uint64_t MiB = 1 << 20;
  CHECK(plan_parts(10 * MiB, 8 * MiB, 16 * MiB).empty());  // below the threshold: one PUT
  auto p = plan_parts(20 * MiB + 5, 8 * MiB, 16 * MiB);
  REQUIRE(p.size() == 3);
  CHECK(p[0].offset == 0);
  CHECK(p[0].size == 8 * MiB);
  CHECK(p[1].offset == 8 * MiB);
  CHECK(p[2].offset == 16 * MiB);
  CHECK(p[2].size == 4 * MiB + 5);
  p = plan_parts(16 * MiB, 8 * MiB, 16 * MiB);  // exactly the threshold and two whole parts
  REQUIRE(p.size() == 2);
  CHECK(p[1].size == 8 * MiB);
  p = plan_parts(12 * MiB, 1024, 0);  // below S3's minimum: 5 MiB parts
  REQUIRE(p.size() == 3);
  CHECK(p[0].size == 5 * MiB);
  CHECK(p[2].size == 2 * MiB);
  const uint64_t huge = 100000 * MiB;  // 12,500 parts of 8 MiB: the part grows to 10 MiB
  p = plan_parts(huge, 8 * MiB, 0);
  CHECK(p.size() <= kMaxParts);
  CHECK(p[0].size == 10 * MiB);
  uint64_t sum = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    CHECK(p[i].offset == sum);
    sum += p[i].size;
  }
  CHECK(sum == huge);
  CHECK(plan_parts(0, 8 * MiB, 0).size() == 1);  // an empty object as one empty part
}

TEST_CASE("manifest: encode and decode round trip") {
  const Manifest m = sample_manifest();
  const std::string bytes = encode_manifest(m);
  CHECK(bytes.substr(0, 4) == "SKRM");
  auto back = decode_manifest(bytes);
  REQUIRE(back);
  CHECK(*back == m);
  REQUIRE(back->find(IndexType::kTimestamp) != nullptr);
  CHECK(back->find(IndexType::kTimestamp)->offset == 80);
  CHECK(back->find(IndexType::kTransaction) == nullptr);
  Manifest empty;
  auto e = decode_manifest(encode_manifest(empty));
  REQUIRE(e);
  CHECK(*e == empty);
}

TEST_CASE("manifest: truncated, extended or flipped at any byte: refused, never a crash") {
  const std::string bytes = encode_manifest(sample_manifest());
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto r = decode_manifest(bytes.substr(0, n));
    CHECK_FALSE(r);
  }
  CHECK_FALSE(decode_manifest(bytes + "x"));
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (int bit : {0, 7}) {
      std::string bad = bytes;
      bad[i] = static_cast<char>(bad[i] ^ (1 << bit));
      CHECK_FALSE(decode_manifest(bad));
    }
  }
  auto r = decode_manifest("garbage that is long enough to be a header");
  REQUIRE_FALSE(r);
  CHECK(r.error().find("bad magic") != std::string::npos);
  std::string v2 = bytes;
  v2[5] = 2;
  CHECK(decode_manifest(v2).error().find("version 2") != std::string::npos);
}

TEST_CASE("manifest: a well-formed but inconsistent manifest is refused") {
  auto refuse = [](const Manifest& m, const char* what) {
    auto r = decode_manifest(encode_manifest(m));
    REQUIRE_FALSE(r);
    CHECK(r.error().find(what) != std::string::npos);
  };
  Manifest m = sample_manifest();
  m.indexes[1].offset = 70;  // overlaps the offset index
  refuse(m, "outside");
  m = sample_manifest();
  m.indexes[3].size = 11;  // past the bundle's end
  refuse(m, "outside");
  m = sample_manifest();
  m.indexes[3].offset = UINT64_MAX;  // overflow
  refuse(m, "outside");
  m = sample_manifest();
  m.indexes[1].type = IndexType::kOffset;
  refuse(m, "twice");
  m = sample_manifest();
  m.indexes[1].type = static_cast<IndexType>(9);
  refuse(m, "unknown index type");
  m = sample_manifest();
  m.end_offset = 5;
  refuse(m, "bad offsets");
  m = sample_manifest();
  m.indexes.push_back({IndexType::kTransaction, 300, 0, 0});
  m.indexes.push_back({IndexType::kTransaction, 300, 0, 0});
  refuse(m, "at most 5");
}

TEST_CASE("upload source: files and bytes read as one stream, by range") {
  test::TempDir d;
  const auto f = d.path() / "a";
  std::ofstream(f, std::ios::binary) << "0123456789";
  UploadSource s;
  REQUIRE(s.add_file(f));
  s.add_bytes("abcdef");
  REQUIRE(s.add_file(f));
  CHECK(s.size() == 26);
  std::string out;
  REQUIRE(s.read(0, 26, out));
  CHECK(out == "0123456789abcdef0123456789");
  REQUIRE(s.read(8, 10, out));
  CHECK(out == "89abcdef01");
  REQUIRE(s.read(26, 0, out));
  CHECK(out.empty());
  CHECK_FALSE(s.read(20, 7, out));
  CHECK_FALSE(s.read(UINT64_MAX, 2, out));
  auto missing = UploadSource().add_file(d.path() / "none");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().find("none") != std::string::npos);
  std::filesystem::resize_file(f, 4);  // shrank under the upload
  CHECK_FALSE(s.read(0, 10, out));
}

TEST_CASE("S3 times, config checks, errors") {
  CHECK(parse_iso8601("1970-01-01T00:00:00.000Z") == 0);
  CHECK(parse_iso8601("2026-12-07T00:21:35Z") == 1796602895);
  CHECK_FALSE(parse_iso8601("2026-13-07T00:21:35Z"));
  CHECK_FALSE(parse_iso8601("yesterday"));
  CHECK_FALSE(parse_iso8601(""));

  RemoteStorageConfig c;
  c.part_size = 1 << 20;
  CHECK(validate(c).value().find("5 MiB") != std::string::npos);
  RemoteStorageManager bad(c);
  auto r = bad.check_bucket();
  REQUIRE_FALSE(r);
  CHECK_FALSE(r.error().retriable);
  c.part_size = 8 << 20;
  CHECK_FALSE(validate(c));
  RemoteStorageManager no_endpoint(c);  // no endpoint, bucket or credentials
  auto f = no_endpoint.fetch_log_segment(segment(), 0, std::nullopt);
  REQUIRE_FALSE(f);
  CHECK(f.error().message.find("configuration") != std::string::npos);

  s3::S3Error missing;
  missing.kind = s3::S3ErrorKind::kService;
  missing.http_status = 404;
  missing.code = "NoSuchKey";
  auto e = from_s3(missing, "fetch");
  CHECK(e.not_found);
  CHECK_FALSE(e.retriable);
  s3::S3Error down = s3::transport_error(s3::S3ErrorKind::kConnection, "refused");
  e = from_s3(down, "fetch");
  CHECK(e.retriable);
  CHECK_FALSE(e.not_found);
  s3::S3Error no_bucket = missing;
  no_bucket.code = "NoSuchBucket";
  CHECK_FALSE(from_s3(no_bucket, "x").not_found);
}
