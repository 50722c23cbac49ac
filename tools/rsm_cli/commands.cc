// rsm_cli's storage commands: each runs RemoteStorageManager operations and
// prints JSON lines.
#include <fstream>
#include <iostream>
#include <iterator>
#include <thread>

#include "common/json_writer.h"
#include "remote/s3/digest.h"
#include "tools/rsm_cli/rsm_cli.h"

namespace skiff::tools::rsmcli {

using remote::IndexType;
using remote::RemoteLogSegmentMetadata;
using remote::RemoteStorageManager;

std::string Args::get(const std::string& name, const std::string& fallback) const {
  auto it = opts.find(name);
  return it == opts.end() ? fallback : it->second;
}

uint64_t Args::number(const std::string& name, uint64_t fallback) const {
  return has(name) ? std::stoull(get(name)) : fallback;
}

std::string json_line(const std::string& key, const std::string& value) {
  return JsonWriter().begin_object().field(key, value).end_object().take();
}

int print_error(const remote::RemoteStorageError& e) {
  std::cout << JsonWriter()
                   .begin_object()
                   .field("error", e.message)
                   .field("retriable", e.retriable)
                   .field("not_found", e.not_found)
                   .end_object()
                   .text()
            << std::endl;
  return 3;
}

namespace {

RemoteLogSegmentMetadata segment_of(const Args& a) {
  RemoteLogSegmentMetadata m;
  m.id.partition.topic = a.get("--topic", "t");
  m.id.partition.topic_id = Uuid::parse(a.get("--topic-id", "AAAAAAAAAAAAAAAAAAAAAQ")).value();
  m.id.partition.partition = static_cast<int32_t>(a.number("--partition", 0));
  m.id.id = Uuid::parse(a.get("--segment-id")).value();
  m.start_offset = static_cast<int64_t>(a.number("--start", 0));
  m.end_offset = static_cast<int64_t>(a.number("--end", 0));
  return m;
}

remote::LogSegmentData data_of(const Args& a) {
  remote::LogSegmentData d;
  d.log = a.get("--log");
  d.offset_index = a.get("--offset-index");
  d.time_index = a.get("--time-index");
  if (a.has("--txn-index")) d.txn_index = a.get("--txn-index");
  if (a.has("--snapshot")) d.producer_snapshot = a.get("--snapshot");
  d.leader_epoch_checkpoint = a.get("--epochs", "0\n1\n0 0\n");
  return d;
}

void write_out(const Args& a, const std::string& bytes) {
  std::ofstream(a.get("--out"), std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

IndexType index_type(const std::string& name) {
  for (auto t : {IndexType::kOffset, IndexType::kTimestamp, IndexType::kProducerSnapshot, IndexType::kLeaderEpoch,
                 IndexType::kTransaction})
    if (remote::index_name(t) == name) return t;
  throw std::invalid_argument("unknown index type " + name);
}

// --kind log|indexes|manifest (default log).
remote::ObjectKind kind_of(const Args& a) {
  const std::string k = a.get("--kind", "log");
  if (k == "log") return remote::ObjectKind::kLog;
  if (k == "indexes") return remote::ObjectKind::kIndexes;
  if (k == "manifest") return remote::ObjectKind::kManifest;
  throw std::invalid_argument("unknown object kind " + k);
}

int ok(JsonWriter& w) {
  std::cout << w.end_object().text() << std::endl;
  return 0;
}

int copy(RemoteStorageManager& rsm, const Args& a) {
  auto r = rsm.copy_log_segment_data(segment_of(a), data_of(a));
  if (!r) return print_error(r.error());
  JsonWriter w;
  return ok(w.begin_object().field("copied", true).field("custom_metadata", *r));
}

// --threads copies of the segment at once (segment ids --segment-id with
// its last character varied), each fetched back whole: one line each.
int copy_parallel(RemoteStorageManager& rsm, const Args& a) {
  const int n = static_cast<int>(a.number("--threads", 4));
  std::vector<std::string> lines(static_cast<size_t>(n));
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      auto m = segment_of(a);
      m.id.id.bytes[15] = static_cast<uint8_t>(m.id.id.bytes[15] + i + 1);
      auto c = rsm.copy_log_segment_data(m, data_of(a));
      auto f = c ? rsm.fetch_log_segment(m, 0, std::nullopt) : remote::RsmResult<std::string>(unexpected(c.error()));
      JsonWriter w;
      w.begin_object().field("segment_id", m.id.id.to_string());
      if (f)
        w.field("sha256", remote::s3::sha256_hex(*f));
      else
        w.field("error", f.error().message);
      lines[static_cast<size_t>(i)] = w.end_object().take();
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& l : lines) std::cout << l << "\n";
  std::cout << std::flush;
  return 0;
}

int fetch(RemoteStorageManager& rsm, const Args& a) {
  std::optional<uint64_t> end;
  if (a.has("--end-position")) end = a.number("--end-position", 0);
  auto r = rsm.fetch_log_segment(segment_of(a), a.number("--start-position", 0), end);
  if (!r) return print_error(r.error());
  write_out(a, *r);
  JsonWriter w;
  return ok(w.begin_object().field("size", uint64_t{r->size()}).field("sha256", remote::s3::sha256_hex(*r)));
}

int fetch_index(RemoteStorageManager& rsm, const Args& a) {
  auto r = rsm.fetch_index(segment_of(a), index_type(a.get("--type")));
  if (!r) return print_error(r.error());
  JsonWriter w;
  w.begin_object().field("present", r->has_value());
  if (*r) {
    write_out(a, **r);
    w.field("size", uint64_t{(*r)->size()}).field("sha256", remote::s3::sha256_hex(**r));
  }
  return ok(w);
}

int manifest(RemoteStorageManager& rsm, const Args& a) {
  auto r = rsm.fetch_manifest(segment_of(a));
  if (!r) return print_error(r.error());
  JsonWriter w;
  w.begin_object().field("log_size", r->log_size).field("indexes_size", r->indexes_size);
  w.field("end_offset", r->end_offset).key("indexes").begin_object();
  for (const auto& i : r->indexes) w.field(remote::index_name(i.type), i.size);
  w.end_object();
  return ok(w);
}

// A crash cut: a multipart upload of the segment's log key, one part sent, never completed.
int cut_upload(RemoteStorageManager& rsm, const Args& a) {
  const std::string key = remote::object_key(rsm.config().key_prefix, segment_of(a), remote::ObjectKind::kLog);
  auto id = rsm.client()->create_multipart_upload(key);
  if (!id) return print_error(remote::from_s3(id.error(), "create"));
  auto part = rsm.client()->upload_part(key, *id, 1, std::string(remote::kMinPartSize, 'x'));
  if (!part) return print_error(remote::from_s3(part.error(), "part"));
  JsonWriter w;
  return ok(w.begin_object().field("key", key).field("upload_id", *id));
}

// Overwrites one of the segment's objects with a file's bytes (a corrupt store, for tests).
int put_raw(RemoteStorageManager& rsm, const Args& a) {
  std::ifstream in(a.get("--file"), std::ios::binary);
  const std::string body((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string key = remote::object_key(rsm.config().key_prefix, segment_of(a), kind_of(a));
  auto r = rsm.client()->put_object(key, body);
  if (!r) return print_error(remote::from_s3(r.error(), "put"));
  JsonWriter w;
  return ok(w.begin_object().field("key", key));
}

int simple(RemoteStorageManager& rsm, const Args& a) {
  const std::string& c = a.command;
  JsonWriter w;
  w.begin_object();
  if (c == "check-bucket") {
    auto r = rsm.check_bucket();
    if (!r) return print_error(r.error());
    w.field("ok", true);
  } else if (c == "create-bucket") {
    auto r = rsm.client() ? rsm.client()->create_bucket() : Expected<void, remote::s3::S3Error>{};
    if (!r) return print_error(remote::from_s3(r.error(), "create bucket"));
    w.field("ok", true);
  } else if (c == "head") {  // --kind log|indexes|manifest: size and ETag ("...-N": N multipart parts)
    auto r = rsm.client()->head_object(remote::object_key(rsm.config().key_prefix, segment_of(a), kind_of(a)));
    if (!r) return print_error(remote::from_s3(r.error(), "head"));
    w.field("size", r->size).field("etag", r->etag);
  } else if (c == "delete") {
    auto r = rsm.delete_log_segment_data(segment_of(a));
    if (!r) return print_error(r.error());
    w.field("deleted", true);
  } else if (c == "abort-stale") {
    auto r = rsm.abort_stale_uploads(std::chrono::seconds(a.number("--older-than", 0)));
    if (!r) return print_error(r.error());
    w.field("aborted", int64_t{*r});
  } else {
    std::cerr << "unknown command " << c << "\n";
    return 2;
  }
  return ok(w);
}

}  // namespace

int run_command(RemoteStorageManager& rsm, const Args& a) {
  const std::string& c = a.command;
  if (c == "copy") return copy(rsm, a);
  if (c == "copy-parallel") return copy_parallel(rsm, a);
  if (c == "fetch") return fetch(rsm, a);
  if (c == "fetch-index") return fetch_index(rsm, a);
  if (c == "manifest") return manifest(rsm, a);
  if (c == "cut-upload") return cut_upload(rsm, a);
  if (c == "put-raw") return put_raw(rsm, a);
  return simple(rsm, a);
}

}  // namespace skiff::tools::rsmcli
