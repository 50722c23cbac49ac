#include "security/sasl/scram_store.h"

#include <fmt/format.h>

#include <stdexcept>

#include "common/file_fields.h"

namespace skiff::sasl {
namespace {

// One credential's record; throws on a value the layout does not allow.
ScramCredentialStore::Map::value_type read_record(std::string_view record) {
  FieldReader in(record);
  std::string user = in.string();
  auto mechanism = mechanism_from_code(in.int8());
  if (user.empty()) throw std::runtime_error("a credential without a user name");
  if (!mechanism) throw std::runtime_error(fmt::format("unknown mechanism for user '{}'", user));
  ScramCredential c;
  c.iterations = static_cast<int32_t>(in.uint32());
  c.salt = in.string();
  c.stored_key = in.string();
  c.server_key = in.string();
  if (!in.done()) throw std::runtime_error(fmt::format("bytes after the credential of user '{}'", user));
  size_t n = digest_size(*mechanism);
  if (c.iterations < kScramMinIterations || c.iterations > kScramMaxIterations || c.salt.empty() ||
      c.stored_key.size() != n || c.server_key.size() != n)
    throw std::runtime_error(fmt::format("invalid {} credential for user '{}'", mechanism_name(*mechanism), user));
  return {{std::move(user), *mechanism}, c};  // a pair of const key: the credential is copied
}

}  // namespace

std::vector<std::string> ScramCredentialStore::encode(const Map& credentials) {
  std::vector<std::string> records;
  for (const auto& [key, c] : credentials) {
    std::string out;
    put_string_field(out, key.first);
    out.push_back(static_cast<char>(key.second));
    put_be_field(out, static_cast<uint32_t>(c.iterations), 4);
    put_string_field(out, c.salt);
    put_string_field(out, c.stored_key);
    put_string_field(out, c.server_key);
    records.push_back(std::move(out));
  }
  return records;
}

ScramCredentialStore::Map ScramCredentialStore::decode(const std::vector<std::string>& records) {
  Map credentials;
  for (const auto& record : records) {
    auto [key, c] = read_record(record);
    if (!credentials.emplace(key, std::move(c)).second)
      throw std::runtime_error(fmt::format("user '{}' has two {} credentials", key.first, mechanism_name(key.second)));
  }
  return credentials;
}

void ScramCredentialStore::load() {
  if (!ns_) return;
  Map loaded = ns_->load(decode);
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
  if (ns_)
    if (auto r = ns_->write(encode(next)); !r) return metadata::error_number(r.error());
  std::unique_lock lock(mu_);
  credentials_ = std::move(next);
  return 0;
}

}  // namespace skiff::sasl
