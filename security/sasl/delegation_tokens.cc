#include "security/sasl/delegation_tokens.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "common/base64.h"
#include "common/file_fields.h"
#include "common/log_escape.h"
#include "common/uuid.h"

namespace skiff::sasl {
namespace {

constexpr size_t kTokenSaltBytes = 32;
constexpr uint32_t kMaxRenewers = 100'000;

// now + duration, saturating (Kafka's DelegationTokenControlManager.sum).
int64_t saturating_plus(int64_t now, int64_t duration) {
  return now > std::numeric_limits<int64_t>::max() - duration ? std::numeric_limits<int64_t>::max() : now + duration;
}

TokenInfo read_token_record(std::string_view record) {
  FieldReader in(record);
  TokenInfo t;
  t.token_id = in.string();
  t.owner = in.string();
  t.requester = in.string();
  const uint32_t renewers = in.uint32();
  if (renewers > kMaxRenewers)
    throw std::runtime_error(fmt::format("token '{}' has {} renewers", t.token_id, renewers));
  for (uint32_t i = 0; i < renewers; ++i) t.renewers.push_back(in.string());
  t.issue_ms = static_cast<int64_t>(in.uint64());
  t.max_ms = static_cast<int64_t>(in.uint64());
  t.expiry_ms = static_cast<int64_t>(in.uint64());
  if (!in.done()) throw std::runtime_error(fmt::format("bytes after token '{}'", t.token_id));
  if (t.token_id.empty() || t.owner.empty()) throw std::runtime_error("a token without an id or owner");
  return t;
}

}  // namespace

PrincipalParts split_principal(const std::string& principal) {
  const auto colon = principal.find(':');
  if (colon == std::string::npos) return {"User", principal};
  return {principal.substr(0, colon), principal.substr(colon + 1)};
}

bool TokenInfo::owner_or_renewer(const std::string& principal) const {
  return owner == principal || requester == principal ||
         std::find(renewers.begin(), renewers.end(), principal) != renewers.end();
}

DelegationTokenStore::DelegationTokenStore(metadata::Namespace* ns, DelegationTokenOptions options)
    : ns_(ns), options_(std::move(options)) {}

std::vector<std::string> DelegationTokenStore::encode(const std::map<std::string, TokenInfo>& tokens) {
  std::vector<std::string> records;
  for (const auto& [id, t] : tokens) {
    std::string out;
    put_string_field(out, t.token_id);
    put_string_field(out, t.owner);
    put_string_field(out, t.requester);
    put_be_field(out, static_cast<uint32_t>(t.renewers.size()), 4);
    for (const auto& r : t.renewers) put_string_field(out, r);
    put_be64_field(out, static_cast<uint64_t>(t.issue_ms));
    put_be64_field(out, static_cast<uint64_t>(t.max_ms));
    put_be64_field(out, static_cast<uint64_t>(t.expiry_ms));
    records.push_back(std::move(out));
  }
  return records;
}

std::map<std::string, TokenInfo> DelegationTokenStore::decode(const std::vector<std::string>& records) {
  std::map<std::string, TokenInfo> out;
  for (const auto& record : records) {
    auto t = read_token_record(record);
    const std::string id = t.token_id;
    if (!out.emplace(id, std::move(t)).second) throw std::runtime_error(fmt::format("token '{}' twice", id));
  }
  return out;
}

// The token's HMAC under the secret and its SCRAM credentials for both
// mechanisms (Kafka's DelegationTokenManager.prepareScramCredentials: the
// base64 HMAC as the password, the mechanism's minimum iterations).
DelegationTokenStore::Entry DelegationTokenStore::entry_for(TokenInfo info) const {
  Entry e;
  e.hmac = scram_hmac(ScramMechanism::kSha512, options_.secret, info.token_id);
  const std::string password = base64_encode(e.hmac);
  e.sha256 = make_credential(ScramMechanism::kSha256, password, kScramMinIterations, random_bytes(kTokenSaltBytes));
  e.sha512 = make_credential(ScramMechanism::kSha512, password, kScramMinIterations, random_bytes(kTokenSaltBytes));
  e.info = std::move(info);
  return e;
}

void DelegationTokenStore::load() {
  if (!ns_ || !enabled()) return;
  auto stored = ns_->load(decode);
  Map loaded;
  for (auto& [id, info] : stored) loaded.emplace(id, entry_for(std::move(info)));
  std::unique_lock lock(mu_);
  tokens_ = std::move(loaded);
}

bool DelegationTokenStore::commit(Map next) {
  if (ns_) {
    std::map<std::string, TokenInfo> infos;
    for (const auto& [id, e] : next) infos.emplace(id, e.info);
    if (auto written = ns_->write(encode(infos)); !written) {
      spdlog::error("delegation tokens: could not be stored ({}); the change is refused", written.error().message);
      return false;
    }
  }
  std::unique_lock lock(mu_);
  tokens_ = std::move(next);
  return true;
}

const DelegationTokenStore::Entry* DelegationTokenStore::by_hmac(const std::string& hmac) const {
  for (const auto& [id, e] : tokens_)
    if (constant_time_equal(e.hmac, hmac)) return &e;
  return nullptr;
}

Expected<DelegationToken, ErrorCode> DelegationTokenStore::create(const std::string& owner,
                                                                  const std::string& requester,
                                                                  std::vector<std::string> renewers,
                                                                  int64_t max_lifetime_ms, int64_t now_ms) {
  if (!enabled()) return unexpected(ErrorCode::kDelegationTokenAuthDisabled);
  const int64_t lifetime =
      max_lifetime_ms > 0 ? std::min(options_.max_lifetime_ms, max_lifetime_ms) : options_.max_lifetime_ms;
  TokenInfo info{Uuid::random().to_string(),        owner, requester, std::move(renewers), now_ms,
                 saturating_plus(now_ms, lifetime), 0};
  info.expiry_ms = std::min(info.max_ms, saturating_plus(now_ms, options_.expiry_time_ms));
  std::lock_guard write(write_mu_);
  Map next;
  {
    std::shared_lock lock(mu_);
    next = tokens_;
  }
  Entry e = entry_for(info);
  DelegationToken out{info, e.hmac};
  next.emplace(info.token_id, std::move(e));
  if (!commit(std::move(next))) return unexpected(ErrorCode::kKafkaStorageError);
  spdlog::info("delegation token {} created for {} by {}", info.token_id, escaped(owner), escaped(requester));
  return out;
}

namespace {

// Kafka's allowedToRenew: the owner or a renewer (not the requester).
bool may_renew(const TokenInfo& t, const std::string& principal) {
  return t.owner == principal || std::find(t.renewers.begin(), t.renewers.end(), principal) != t.renewers.end();
}

}  // namespace

Expected<int64_t, ErrorCode> DelegationTokenStore::renew(const std::string& hmac, const std::string& principal,
                                                         int64_t period_ms, int64_t now_ms) {
  if (!enabled()) return unexpected(ErrorCode::kDelegationTokenAuthDisabled);
  std::lock_guard write(write_mu_);
  Map next;
  std::string id;
  int64_t expiry = 0;
  {
    std::shared_lock lock(mu_);
    const Entry* e = by_hmac(hmac);
    if (!e) return unexpected(ErrorCode::kDelegationTokenNotFound);
    if (e->info.expired(now_ms)) return unexpected(ErrorCode::kDelegationTokenExpired);
    if (!may_renew(e->info, principal)) return unexpected(ErrorCode::kDelegationTokenOwnerMismatch);
    const int64_t period = period_ms > 0 ? std::min(options_.expiry_time_ms, period_ms) : options_.expiry_time_ms;
    id = e->info.token_id;
    expiry = std::min(e->info.max_ms, saturating_plus(now_ms, period));
    next = tokens_;
  }
  next.at(id).info.expiry_ms = expiry;
  if (!commit(std::move(next))) return unexpected(ErrorCode::kKafkaStorageError);
  return expiry;
}

Expected<int64_t, ErrorCode> DelegationTokenStore::expire(const std::string& hmac, const std::string& principal,
                                                          int64_t period_ms, int64_t now_ms) {
  if (!enabled()) return unexpected(ErrorCode::kDelegationTokenAuthDisabled);
  std::lock_guard write(write_mu_);
  Map next;
  std::string id;
  int64_t expiry = now_ms;
  {
    std::shared_lock lock(mu_);
    const Entry* e = by_hmac(hmac);
    if (!e) return unexpected(ErrorCode::kDelegationTokenNotFound);
    if (!may_renew(e->info, principal)) return unexpected(ErrorCode::kDelegationTokenOwnerMismatch);
    if (period_ms >= 0 && e->info.expired(now_ms)) return unexpected(ErrorCode::kDelegationTokenExpired);
    if (period_ms >= 0) expiry = std::min(e->info.max_ms, saturating_plus(now_ms, period_ms));
    id = e->info.token_id;
    next = tokens_;
  }
  if (period_ms < 0) {
    next.erase(id);
  } else {
    next.at(id).info.expiry_ms = expiry;
  }
  if (!commit(std::move(next))) return unexpected(ErrorCode::kKafkaStorageError);
  if (period_ms < 0) spdlog::info("delegation token {} expired on request", id);
  return expiry;
}

std::vector<DelegationToken> DelegationTokenStore::tokens() const {
  std::vector<DelegationToken> out;
  std::shared_lock lock(mu_);
  for (const auto& [id, e] : tokens_) out.push_back({e.info, e.hmac});
  return out;
}

void DelegationTokenStore::maybe_sweep(int64_t now_ms) {
  {
    std::lock_guard write(write_mu_);
    if (last_sweep_ms_ != 0 && now_ms - last_sweep_ms_ < options_.check_interval_ms) return;
  }
  sweep(now_ms);
}

size_t DelegationTokenStore::sweep(int64_t now_ms) {
  if (!enabled()) return 0;
  std::lock_guard write(write_mu_);
  last_sweep_ms_ = now_ms;
  Map next;
  {
    std::shared_lock lock(mu_);
    next = tokens_;
  }
  size_t removed = 0;
  for (auto it = next.begin(); it != next.end();) {
    if (!it->second.info.expired(now_ms)) {
      ++it;
      continue;
    }
    spdlog::info("delegation token expired for token: {} for owner: {}", it->first, escaped(it->second.info.owner));
    it = next.erase(it);
    ++removed;
  }
  if (removed > 0 && !commit(std::move(next))) return 0;
  return removed;
}

std::optional<TokenCredential> DelegationTokenStore::credential(const std::string& token_id, ScramMechanism m,
                                                                int64_t now_ms) const {
  if (!enabled()) return std::nullopt;
  std::shared_lock lock(mu_);
  auto it = tokens_.find(token_id);
  if (it == tokens_.end() || it->second.info.expired(now_ms)) return std::nullopt;
  const auto& info = it->second.info;
  return TokenCredential{split_principal(info.owner).name, info.expiry_ms,
                         m == ScramMechanism::kSha256 ? it->second.sha256 : it->second.sha512};
}

}  // namespace skiff::sasl
