#include "security/sasl/scram_store.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>

#include "log/file_util.h"
#include "metadata/state_file.h"

namespace skiff::sasl {
namespace {

constexpr std::string_view kMagic = "SKIFFSCR";
constexpr int16_t kVersion = 1;

// One record after `user`; throws on a value the layout does not allow.
ScramCredentialStore::Map::value_type read_record(FieldReader& in) {
  std::string user = in.string();
  auto mechanism = mechanism_from_code(in.int8());
  if (user.empty()) throw std::runtime_error("a credential without a user name");
  if (!mechanism) throw std::runtime_error(fmt::format("unknown mechanism for user '{}'", user));
  ScramCredential c;
  c.iterations = static_cast<int32_t>(in.uint32());
  c.salt = in.string();
  c.stored_key = in.string();
  c.server_key = in.string();
  size_t n = digest_size(*mechanism);
  if (c.iterations < kScramMinIterations || c.iterations > kScramMaxIterations || c.salt.empty() ||
      c.stored_key.size() != n || c.server_key.size() != n)
    throw std::runtime_error(fmt::format("invalid {} credential for user '{}'", mechanism_name(*mechanism), user));
  return {{std::move(user), *mechanism}, c};  // a pair of const key: the credential is copied
}

// The credentials are secrets: the temporary file write_file_durably fills
// and renames over `file` ("<file>.tmp", log/file_util.cc) is created owner-only
// first, so the file never exists with wider permissions. Returns 0 or errno.
int prepare_private_tmp(const std::filesystem::path& file) {
  auto tmp = file;
  tmp += ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return errno;
  int rc = ::fchmod(fd, 0600) == 0 ? 0 : errno;
  ::close(fd);
  return rc;
}

}  // namespace

std::string ScramCredentialStore::encode(const Map& credentials) {
  std::string out = metadata::begin_state_file(kMagic, kVersion, static_cast<uint32_t>(credentials.size()));
  for (const auto& [key, c] : credentials) {
    put_string_field(out, key.first);
    out.push_back(static_cast<char>(key.second));
    put_be_field(out, static_cast<uint32_t>(c.iterations), 4);
    put_string_field(out, c.salt);
    put_string_field(out, c.stored_key);
    put_string_field(out, c.server_key);
  }
  metadata::seal_state_file(out);
  return out;
}

ScramCredentialStore::Map ScramCredentialStore::decode(std::string_view bytes) {
  uint32_t count = 0;
  FieldReader in = metadata::open_state_file(bytes, kMagic, kVersion, "a SCRAM credentials file", count);
  Map credentials;
  for (uint32_t i = 0; i < count; ++i) {
    auto [key, c] = read_record(in);
    if (!credentials.emplace(key, std::move(c)).second)
      throw std::runtime_error(fmt::format("user '{}' has two {} credentials", key.first, mechanism_name(key.second)));
  }
  if (!in.done()) throw std::runtime_error("bytes after the last credential");
  return credentials;
}

void ScramCredentialStore::load() {
  if (file_.empty()) return;
  std::string bytes;
  std::error_code ec;
  if (!std::filesystem::exists(file_, ec)) return;
  if (!storage::read_small_file(file_, bytes))
    throw std::runtime_error(fmt::format("cannot read the SCRAM credentials file {}", file_.string()));
  Map loaded;
  try {
    loaded = decode(bytes);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(fmt::format("the SCRAM credentials file {} is corrupt: {}", file_.string(), e.what()));
  }
  std::unique_lock lock(mu_);
  credentials_ = std::move(loaded);
}

std::optional<ScramCredential> ScramCredentialStore::lookup(std::string_view user, ScramMechanism m) const {
  std::shared_lock lock(mu_);
  auto it = credentials_.find(Key(std::string(user), m));
  if (it == credentials_.end()) return std::nullopt;
  return it->second;
}

std::map<std::string, std::vector<ScramCredentialInfo>> ScramCredentialStore::describe(
    const std::optional<std::vector<std::string>>& users) const {
  std::map<std::string, std::vector<ScramCredentialInfo>> out;
  std::shared_lock lock(mu_);
  auto add = [&out](const Key& key, const ScramCredential& c) { out[key.first].push_back({key.second, c.iterations}); };
  if (!users) {
    for (const auto& [key, c] : credentials_) add(key, c);
    return out;
  }
  for (const auto& user : *users) {
    if (out.contains(user)) continue;  // named twice
    for (auto it = credentials_.lower_bound(Key(user, ScramMechanism::kSha256));
         it != credentials_.end() && it->first.first == user; ++it)
      add(it->first, it->second);
  }
  return out;
}

int ScramCredentialStore::apply(const std::vector<ScramCredentialChange>& changes) {
  std::lock_guard writer(write_mu_);
  Map next;
  {
    std::shared_lock lock(mu_);
    next = credentials_;
  }
  for (const auto& change : changes) {
    Key key(change.user, change.mechanism);
    if (change.credential)
      next.insert_or_assign(key, *change.credential);
    else
      next.erase(key);
  }
  if (!file_.empty()) {
    if (int err = prepare_private_tmp(file_)) return err;
    if (int err = storage::write_file_durably(file_, encode(next))) return err;
  }
  std::unique_lock lock(mu_);
  credentials_ = std::move(next);
  return 0;
}

}  // namespace skiff::sasl
