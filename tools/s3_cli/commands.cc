#include "tools/s3_cli/commands.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "remote/s3/digest.h"

namespace skiff::tools::s3cli {

using namespace remote::s3;

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out + "\"";
}

void print_error(const S3Error& e) {
  std::cout << "{\"error\": " << json_string(e.describe()) << ", \"code\": " << json_string(e.code)
            << ", \"status\": " << e.http_status << ", \"retriable\": " << (e.retriable ? "true" : "false")
            << ", \"kind\": " << static_cast<int>(e.kind) << "}" << std::endl;
}

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

template <class T>
bool failed(const Expected<T, S3Error>& r) {
  if (r) return false;
  print_error(r.error());
  return true;
}

int cmd_get(S3Client& c, const Args& a) {
  std::optional<ByteRange> range;
  if (!a.range.empty()) {
    const auto dash = a.range.find('-');
    range = ByteRange{std::stoull(a.range.substr(0, dash)), std::nullopt};
    if (dash + 1 < a.range.size()) range->last = std::stoull(a.range.substr(dash + 1));
  }
  auto r = c.get_object(a.positional.at(0), range);
  if (failed(r)) return 3;
  if (!a.file.empty()) std::ofstream(a.file, std::ios::binary) << r->body;
  std::cout << "{\"size\": " << r->body.size() << ", \"total_size\": " << r->total_size
            << ", \"etag\": " << json_string(r->etag) << ", \"sha256\": " << json_string(sha256_hex(r->body)) << "}"
            << std::endl;
  return 0;
}

int cmd_list(S3Client& c, const Args& a) {
  int pages = 0;
  auto r = c.list_all(a.prefix, a.max_keys, &pages);
  if (failed(r)) return 3;
  std::cout << "{\"pages\": " << pages << ", \"keys\": [";
  for (size_t i = 0; i < r->size(); ++i) std::cout << (i ? ", " : "") << json_string((*r)[i].key);
  std::cout << "], \"sizes\": [";
  for (size_t i = 0; i < r->size(); ++i) std::cout << (i ? ", " : "") << (*r)[i].size;
  std::cout << "]}" << std::endl;
  return 0;
}

int cmd_put_many(S3Client& c, const Args& a) {
  for (int i = 0; i < a.count; ++i) {
    char suffix[16];
    std::snprintf(suffix, sizeof suffix, "%05d", i);
    const std::string key = a.positional.at(0) + suffix;
    if (failed(c.put_object(key, key))) return 3;
  }
  std::cout << "{\"put\": " << a.count << ", \"connections\": " << c.http().connections_opened() << "}" << std::endl;
  return 0;
}

int cmd_mpu_list(S3Client& c, const Args& a) {
  std::string key_marker, id_marker;
  std::cout << "{\"uploads\": [";
  bool first = true;
  for (;;) {
    auto r = c.list_multipart_uploads(a.prefix, key_marker, id_marker);
    if (!r) {
      std::cout << "]}" << std::endl;
      print_error(r.error());
      return 3;
    }
    for (const auto& u : r->uploads) {
      std::cout << (first ? "" : ", ") << "{\"key\": " << json_string(u.key)
                << ", \"upload_id\": " << json_string(u.upload_id) << "}";
      first = false;
    }
    if (!r->truncated) break;
    key_marker = r->next_key_marker;
    id_marker = r->next_upload_id_marker;
  }
  std::cout << "]}" << std::endl;
  return 0;
}

// Put, get, head, list, delete and head again each key: where encoding bugs show.
int cmd_roundtrip(S3Client& c, const Args& a) {
  int bad = 0;
  for (const auto& key : a.positional) {
    std::string step = "put";
    const std::string body = "value of " + key;
    bool ok = c.put_object(key, body).has_value();
    if (ok) step = "get", ok = c.get_object(key).value_or(GetResult{}).body == body;
    if (ok) step = "head", ok = c.head_object(key).value_or(ObjectInfo{}).size == body.size();
    if (ok) {
      step = "list";
      auto l = c.list_all(key);
      ok = l && l->size() == 1 && (*l)[0].key == key;
    }
    if (ok) step = "delete", ok = c.delete_object(key).has_value();
    if (ok) {
      step = "head-after-delete";
      auto h = c.head_object(key);
      ok = !h && h.error().code == "NoSuchKey";
    }
    std::cout << "{\"key\": " << json_string(key) << ", \"ok\": " << (ok ? "true" : "false")
              << ", \"step\": " << json_string(step) << "}" << std::endl;
    bad += ok ? 0 : 1;
  }
  return bad == 0 ? 0 : 1;
}

// Puts KEY, says so, waits for a line on stdin (the test restarts the server
// meanwhile), then reads KEY back on the same client: its pooled connection
// is dead by then, and the client must get a new one by itself.
int cmd_across_restart(S3Client& c, const Args& a) {
  const std::string& key = a.positional.at(0);
  if (failed(c.put_object(key, "kept across a restart"))) return 3;
  std::cout << "{\"ready\": true, \"connections\": " << c.http().connections_opened() << "}" << std::endl;
  std::string line;
  std::getline(std::cin, line);
  auto r = c.get_object(key);
  if (failed(r)) return 3;
  std::cout << "{\"body\": " << json_string(r->body) << ", \"connections\": " << c.http().connections_opened() << "}"
            << std::endl;
  return 0;
}

int cmd_delete_many(S3Client& c, const Args& a) {
  auto r = c.delete_objects(a.positional);
  if (failed(r)) return 3;
  std::cout << "{\"deleted\": " << r->deleted.size() << ", \"failed\": " << r->failed.size() << "}" << std::endl;
  return 0;
}

int multipart(S3Client& c, const std::string& cmd, const Args& a);

int simple(S3Client& c, const std::string& cmd, const Args& a) {
  const auto& p = a.positional;
  if (cmd == "create-bucket") {
    if (failed(c.create_bucket())) return 3;
    std::cout << "{\"created\": true}" << std::endl;
  } else if (cmd == "head-bucket") {
    if (failed(c.head_bucket())) return 3;
    std::cout << "{\"bucket\": true}" << std::endl;
  } else if (cmd == "put" || cmd == "put-bad-md5" || cmd == "mpu-put") {
    const std::string body = a.file.empty() ? "" : read_file(a.file);
    auto r = cmd == "put"       ? c.put_object(p.at(0), body)
             : cmd == "mpu-put" ? c.put_object_multipart(p.at(0), body, a.part_size)
                                : c.put_object(p.at(0), body, md5("not the body"));
    if (failed(r)) return 3;
    std::cout << "{\"etag\": " << json_string(*r) << "}" << std::endl;
  } else if (cmd == "head") {
    auto r = c.head_object(p.at(0));
    if (failed(r)) return 3;
    std::cout << "{\"size\": " << r->size << ", \"etag\": " << json_string(r->etag) << "}" << std::endl;
  } else if (cmd == "delete") {
    if (failed(c.delete_object(p.at(0)))) return 3;
    std::cout << "{\"deleted\": true}" << std::endl;
  } else {
    return multipart(c, cmd, a);
  }
  return 0;
}

int multipart(S3Client& c, const std::string& cmd, const Args& a) {
  const auto& p = a.positional;
  if (cmd == "mpu-create") {
    auto r = c.create_multipart_upload(p.at(0));
    if (failed(r)) return 3;
    std::cout << "{\"upload_id\": " << json_string(*r) << "}" << std::endl;
  } else if (cmd == "mpu-upload") {
    auto r = c.upload_part(p.at(0), p.at(1), std::stoi(p.at(2)), read_file(a.file));
    if (failed(r)) return 3;
    std::cout << "{\"etag\": " << json_string(r->etag) << "}" << std::endl;
  } else if (cmd == "mpu-abort") {
    if (failed(c.abort_multipart_upload(p.at(0), p.at(1)))) return 3;
    std::cout << "{\"aborted\": true}" << std::endl;
  } else {
    std::cerr << "unknown command " << cmd << "\n";
    return 2;
  }
  return 0;
}

}  // namespace

int run_command(S3Client& c, const std::string& cmd, const Args& a) {
  try {
    if (cmd == "get") return cmd_get(c, a);
    if (cmd == "list") return cmd_list(c, a);
    if (cmd == "put-many") return cmd_put_many(c, a);
    if (cmd == "mpu-list") return cmd_mpu_list(c, a);
    if (cmd == "roundtrip") return cmd_roundtrip(c, a);
    if (cmd == "delete-many") return cmd_delete_many(c, a);
    if (cmd == "across-restart") return cmd_across_restart(c, a);
    return simple(c, cmd, a);
  } catch (const std::out_of_range&) {
    std::cerr << cmd << ": missing argument\n";
    return 2;
  }
}

}  // namespace skiff::tools::s3cli
