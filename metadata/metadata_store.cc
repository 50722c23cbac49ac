#include "metadata/metadata_store.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

#include "common/file_fields.h"
#include "log/crc32c.h"
#include "log/file_util.h"
#include "log/storage_log.h"

namespace skiff::metadata {
namespace fs = std::filesystem;
namespace {

constexpr std::string_view kMagic = "SKIFFMDS";
constexpr std::string_view kTempSuffix = ".tmp";

uint32_t crc_of(std::string_view bytes) {
  return storage::crc32c(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

Error io_error(std::string_view what, const fs::path& path, int err) {
  return {fmt::format("cannot {} the metadata file {}: {}", what, path.string(), std::strerror(err)), err};
}

// Writes `bytes` to a fresh `tmp` and fsyncs it. Returns 0 or errno.
int write_temp(const fs::path& tmp, std::string_view bytes, bool secret) {
  const mode_t mode = secret ? 0600 : 0644;
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return errno;
  int rc = ::fchmod(fd, mode) == 0 ? 0 : errno;  // a leftover temp file may have had another mode
  if (rc == 0) rc = storage::pwrite_full(fd, bytes.data(), bytes.size(), 0);
  if (rc == 0 && ::fsync(fd) != 0) rc = errno;
  ::close(fd);
  return rc;
}

// Reads the frame's records after the header; false (with `why`) on a bad frame.
bool read_records(FieldReader& in, Contents& out, std::string& why) {
  try {
    const uint32_t count = in.uint32();
    for (uint32_t i = 0; i < count; ++i) out.records.push_back(in.string());
    if (!in.done()) why = "bytes after the last record";
  } catch (const std::runtime_error& e) {
    why = e.what();
  }
  return why.empty();
}

}  // namespace

Namespace::Namespace(const NamespaceDef& def, const fs::path& dir)
    : def_(def), dir_(dir), file_(dir / std::string(def.name)) {}

Error Namespace::corrupt(std::string_view why) const {
  return {fmt::format("the metadata file {} is corrupt: {}", file_.string(), why), 0};
}

Result<Contents> Namespace::read() const {
  std::error_code ec;
  if (!fs::exists(file_, ec)) {
    if (ec) return unexpected(io_error("read", file_, ec.value()));
    return Contents{false, def_.version, {}};
  }
  std::string bytes;
  if (!storage::read_small_file(file_, bytes)) return unexpected(io_error("read", file_, errno != 0 ? errno : EIO));
  auto decoded = MetadataStore::decode(def_, bytes);
  if (!decoded) return unexpected(corrupt(decoded.error()));
  if (decoded->version > def_.version)
    return unexpected(Error{fmt::format("the metadata file {} has version {}, newer than the version {} this broker "
                                        "knows: it was written by a newer Skiff (start that one, or restore a copy "
                                        "of the data dir from before the upgrade)",
                                        file_.string(), decoded->version, def_.version),
                            0});
  return std::move(*decoded);
}

Result<void> Namespace::write(const std::vector<std::string>& records) {
  std::lock_guard lock(write_mu_);
  auto r = write_file(MetadataStore::encode(def_, records));
  if (!r) storage::storage_log().error("{}", r.error().message);
  return r;
}

Result<void> Namespace::write_file(const std::string& bytes) {
  fs::path tmp = file_;
  tmp += kTempSuffix;
  if (int rc = write_temp(tmp, bytes, def_.secret)) {
    ::unlink(tmp.c_str());
    return unexpected(io_error("write", tmp, rc));
  }
  step(WriteStep::kTempSynced);
  if (::rename(tmp.c_str(), file_.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    return unexpected(io_error("replace", file_, err));
  }
  step(WriteStep::kRenamed);
  if (int rc = storage::fsync_dir(dir_)) return unexpected(io_error("sync the directory of", file_, rc));
  step(WriteStep::kDirSynced);
  return {};
}

void Namespace::step(WriteStep s) const {
  if (hook_) hook_(s);
}

Result<std::unique_ptr<MetadataStore>> MetadataStore::open(const fs::path& log_dir) {
  const fs::path dir = log_dir / std::string(kStoreDir);
  if (int rc = storage::create_directories_durably(dir)) return unexpected(io_error("create", dir, rc));
  std::error_code ec;
  bool removed = false;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const auto name = e.path().filename().string();
    if (name.size() <= kTempSuffix.size() || !name.ends_with(kTempSuffix)) continue;
    storage::storage_log().info("removing {}: a metadata write cut short by a crash", e.path().string());
    if (::unlink(e.path().c_str()) != 0) return unexpected(io_error("remove", e.path(), errno));
    removed = true;
  }
  if (ec) return unexpected(io_error("list the directory of", dir, ec.value()));
  if (removed)
    if (int rc = storage::fsync_dir(dir)) return unexpected(io_error("sync the directory of", dir, rc));
  return std::unique_ptr<MetadataStore>(new MetadataStore(dir));
}

Namespace& MetadataStore::ns(const NamespaceDef& def) {
  std::lock_guard lock(mu_);
  auto it = namespaces_.find(def.name);
  if (it == namespaces_.end())
    it = namespaces_.emplace(std::string(def.name), std::unique_ptr<Namespace>(new Namespace(def, dir_))).first;
  return *it->second;
}

std::string MetadataStore::encode(const NamespaceDef& def, const std::vector<std::string>& records) {
  std::string out(kMagic);
  put_string_field(out, def.name);
  put_be_field(out, static_cast<uint16_t>(def.version), 2);
  put_be_field(out, static_cast<uint32_t>(records.size()), 4);
  for (const auto& r : records) put_string_field(out, r);
  put_be_field(out, crc_of(out), 4);
  return out;
}

Expected<Contents, std::string> MetadataStore::decode(const NamespaceDef& def, std::string_view bytes) {
  if (bytes.size() < kMagic.size() + 4 + 2 + 4 + 4 || bytes.substr(0, kMagic.size()) != kMagic)
    return unexpected(std::string("not a metadata file (bad magic or too short)"));
  const auto body = bytes.substr(0, bytes.size() - 4);
  if (load_be32(reinterpret_cast<const uint8_t*>(bytes.data() + body.size())) != crc_of(body))
    return unexpected(std::string("CRC mismatch"));
  FieldReader in(body.substr(kMagic.size()));
  Contents out;
  out.found = true;
  std::string why;
  try {
    const std::string name = in.string();
    if (name != def.name) return unexpected(fmt::format("it holds namespace '{}', not '{}'", name, def.name));
    out.version = static_cast<int16_t>(load_be16(in.take(2)));
  } catch (const std::runtime_error& e) {
    return unexpected(std::string(e.what()));
  }
  if (out.version < 1) return unexpected(fmt::format("version {}", out.version));
  if (!read_records(in, out, why)) return unexpected(why);
  return out;
}

}  // namespace skiff::metadata
