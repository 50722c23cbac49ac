#include "metadata/legacy_migration.h"

#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <map>
#include <stdexcept>

#include "common/file_fields.h"
#include "log/crc32c.h"
#include "log/file_util.h"
#include "log/storage_log.h"

namespace skiff::metadata {
namespace fs = std::filesystem;
namespace {

// ---------------------------------------------------------------------------
// The binary state-file frame of the legacy files.

FieldReader open_state_file(std::string_view bytes, std::string_view magic, uint32_t& count) {
  if (bytes.size() < magic.size() + 10 || bytes.substr(0, magic.size()) != magic) throw std::runtime_error("bad magic");
  auto body = bytes.substr(0, bytes.size() - 4);
  const uint32_t crc = load_be32(reinterpret_cast<const uint8_t*>(bytes.data() + body.size()));
  if (crc != storage::crc32c(reinterpret_cast<const uint8_t*>(body.data()), body.size()))
    throw std::runtime_error("CRC mismatch");
  FieldReader in(body.substr(magic.size()));
  const auto found = static_cast<int16_t>(load_be16(in.take(2)));
  if (found != 1) throw std::runtime_error(fmt::format("unknown version {}", found));
  count = in.uint32();
  return in;
}

// Reads fields and appends them unchanged to one record.
struct Copier {
  FieldReader& in;
  std::string out;
  int8_t int8() {
    const int8_t v = in.int8();
    out.push_back(static_cast<char>(v));
    return v;
  }
  uint32_t uint32() {
    const uint32_t v = in.uint32();
    put_be_field(out, v, 4);
    return v;
  }
  void string() { put_string_field(out, in.string()); }
};

// One record of each binary format (the layouts of the owners' headers).
void copy_acl(Copier& c) {
  for (int i = 0; i < 4; ++i) c.int8();    // resource type, pattern type, operation, permission
  for (int i = 0; i < 3; ++i) c.string();  // name, principal, host
}

void copy_scram(Copier& c) {
  c.string();                              // user
  c.int8();                                // mechanism
  c.uint32();                              // iterations
  for (int i = 0; i < 3; ++i) c.string();  // salt, stored key, server key
}

void copy_quota(Copier& c) {
  const int8_t parts = c.int8();
  for (int8_t i = 0; i < parts; ++i) {
    c.int8();                       // entity type
    if (c.int8() != 0) c.string();  // has name, name
  }
  const uint32_t values = c.uint32();
  for (uint32_t i = 0; i < values; ++i) {
    c.string();  // key
    c.uint32();  // the value's IEEE 754 bits, high then low
    c.uint32();
  }
}

void copy_subscription(Copier& c) {
  c.string();  // name
  const uint32_t entries = c.uint32();
  for (uint32_t i = 0; i < 2 * entries; ++i) c.string();  // key, value
}

std::vector<std::string> framed_records(std::string_view bytes, std::string_view magic, void (*copy)(Copier&)) {
  uint32_t count = 0;
  FieldReader in = open_state_file(bytes, magic, count);
  std::vector<std::string> records;
  for (uint32_t i = 0; i < count; ++i) {
    Copier c{in, {}};
    copy(c);
    records.push_back(std::move(c.out));
  }
  if (!in.done()) throw std::runtime_error("bytes after the last record");
  return records;
}

// ---------------------------------------------------------------------------
// The text formats.

// The lines after `header` (the first line); the last must end in '\n'
// unless `lenient` (the dynamic config reader used getline).
std::vector<std::string_view> text_lines(std::string_view text, std::string_view header, bool lenient) {
  std::vector<std::string_view> lines;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) {
      if (!lenient) throw std::runtime_error("last line is not complete");
      end = text.size();
    }
    lines.push_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  if (lines.empty() || lines.front() != header)
    throw std::runtime_error(fmt::format("the first line is not '{}'", header));
  lines.erase(lines.begin());
  return lines;
}

// The three TAB-separated fields of a line.
std::array<std::string_view, 3> tab_fields(std::string_view line) {
  const size_t t1 = line.find('\t');
  const size_t t2 = t1 == std::string_view::npos ? t1 : line.find('\t', t1 + 1);
  if (t2 == std::string_view::npos) throw std::runtime_error("a line is not <a>TAB<b>TAB<c>");
  return {line.substr(0, t1), line.substr(t1 + 1, t2 - t1 - 1), line.substr(t2 + 1)};
}

std::string unescape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    unsigned v = 0;
    if (i + 2 >= s.size()) throw std::runtime_error("truncated escape");
    auto [ptr, ec] = std::from_chars(s.data() + i + 1, s.data() + i + 3, v, 16);
    if (ec != std::errc() || ptr != s.data() + i + 3) throw std::runtime_error("bad escape");
    out += static_cast<char>(v);
    i += 2;
  }
  return out;
}

// group-configs: group string | count int32 | (key string | value string)*.
std::vector<std::string> group_config_records(std::string_view text) {
  std::map<std::string, std::map<std::string, std::string>> all;
  for (auto line : text_lines(text, "skiff-group-configs v1", false)) {
    auto [group, key, value] = tab_fields(line);
    all[unescape(group)][unescape(key)] = unescape(value);
  }
  return named_string_map_records(all);
}

// dynamic-broker-config: scope int8 (0 broker, 1 cluster default) | key string | value string.
std::vector<std::string> dynamic_config_records(std::string_view text) {
  std::map<std::pair<int8_t, std::string>, std::string> all;
  for (auto line : text_lines(text, "skiff-dynamic-broker-config v1", true)) {
    if (line.empty()) continue;
    auto [scope, key, value] = tab_fields(line);
    if (scope != "broker" && scope != "default") throw std::runtime_error(fmt::format("unknown scope {}", scope));
    all[{scope == "broker" ? 0 : 1, std::string(key)}] = std::string(value);
  }
  std::vector<std::string> records;
  for (const auto& [scope_key, value] : all) {
    std::string r(1, static_cast<char>(scope_key.first));
    put_string_field(r, scope_key.second);
    put_string_field(r, value);
    records.push_back(std::move(r));
  }
  return records;
}

// producer-ids: next block start int64.
std::vector<std::string> producer_id_records(std::string_view text) {
  constexpr std::string_view key = "next.block.start:";
  auto pos = text.find(key);
  if (pos == std::string_view::npos) throw std::runtime_error(fmt::format("no {} line", key));
  pos += key.size();
  while (pos < text.size() && text[pos] == ' ') ++pos;
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data() + pos, text.data() + text.size(), v);
  if (ec != std::errc() || v < 0) throw std::runtime_error(fmt::format("bad {} value", key));
  std::string r;
  put_be64_field(r, static_cast<uint64_t>(v));
  return {r};
}

// ---------------------------------------------------------------------------

// Removes `path` if present; true when it was there.
Result<bool> remove_file(const fs::path& path) {
  if (::unlink(path.c_str()) == 0) return true;
  if (errno == ENOENT) return false;
  return unexpected(Error{fmt::format("cannot remove {}: {}", path.string(), std::strerror(errno)), errno});
}

Result<void> sync_dir(const fs::path& dir) {
  if (int rc = storage::fsync_dir(dir))
    return unexpected(Error{fmt::format("cannot sync the directory {}: {}", dir.string(), std::strerror(rc)), rc});
  return {};
}

// Steps 3 and 4 of the header for one namespace whose legacy file exists.
Result<void> move_to_store(Namespace& ns, const fs::path& legacy) {
  auto current = ns.read();
  if (!current) return unexpected(current.error());
  if (current->found) {
    storage::storage_log().info("removing {}: already migrated to {}", legacy.string(), ns.file().string());
  } else {
    std::string bytes;
    if (!storage::read_small_file(legacy, bytes))
      return unexpected(Error{fmt::format("cannot read the legacy state file {}", legacy.string()), EIO});
    std::vector<std::string> records;
    try {
      records = legacy_records(ns.def(), bytes);
    } catch (const std::runtime_error& e) {
      return unexpected(Error{fmt::format("the legacy state file {} is corrupt: {}", legacy.string(), e.what()), 0});
    }
    if (auto w = ns.write(records); !w) return w;
    storage::storage_log().info("migrated {} to {} ({} records)", legacy.string(), ns.file().string(), records.size());
  }
  if (auto r = remove_file(legacy); !r) return unexpected(r.error());
  return sync_dir(legacy.parent_path());
}

}  // namespace

std::vector<std::string> legacy_records(const NamespaceDef& def, std::string_view bytes) {
  if (def.name == kAcls.name) return framed_records(bytes, "SKIFFACL", copy_acl);
  if (def.name == kScramCredentials.name) return framed_records(bytes, "SKIFFSCR", copy_scram);
  if (def.name == kClientQuotas.name) return framed_records(bytes, "SKIFFCQS", copy_quota);
  if (def.name == kClientMetrics.name) return framed_records(bytes, "SKIFFCMS", copy_subscription);
  if (def.name == kGroupConfigs.name) return group_config_records(bytes);
  if (def.name == kDynamicBrokerConfig.name) return dynamic_config_records(bytes);
  if (def.name == kProducerIds.name) return producer_id_records(bytes);
  throw std::logic_error(fmt::format("no legacy format for namespace {}", def.name));
}

Result<int> migrate_legacy_files(MetadataStore& store, const fs::path& log_dir) {
  int moved = 0;
  for (const auto& def : kNamespaces) {
    if (def.legacy_file.empty()) continue;  // born in the store
    const fs::path legacy = log_dir / std::string(def.legacy_file);
    fs::path tmp = legacy;
    tmp += ".tmp";
    auto removed_tmp = remove_file(tmp);
    if (!removed_tmp) return unexpected(removed_tmp.error());
    if (*removed_tmp)
      if (auto s = sync_dir(log_dir); !s) return unexpected(s.error());
    std::error_code ec;
    if (!fs::exists(legacy, ec)) continue;
    if (auto r = move_to_store(store.ns(def), legacy); !r) return unexpected(r.error());
    ++moved;
  }
  return moved;
}

Result<std::unique_ptr<MetadataStore>> open_metadata_store(const fs::path& log_dir) {
  auto store = MetadataStore::open(log_dir);
  if (!store) return store;
  if (auto moved = migrate_legacy_files(**store, log_dir); !moved) return unexpected(moved.error());
  return store;
}

}  // namespace skiff::metadata
