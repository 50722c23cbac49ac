#include "security/acl/authorizer.h"

#include <cstring>

#include "common/log_escape.h"
#include "common/subsystem_logger.h"

namespace skiff::acl {
namespace {

spdlog::logger& acl_log() {
  static const std::shared_ptr<spdlog::logger> logger = subsystem_logger("api");
  return *logger;
}

// Kafka refuses to delete more than this many ACLs in one request.
constexpr size_t kMaxDeletedPerRequest = 10000;

}  // namespace

Authorizer::Authorizer(AuthorizerConfig config)
    : super_users_(config.super_users.begin(), config.super_users.end()),
      allow_if_no_acls_(config.allow_everyone_if_no_acl_found),
      store_(*config.acls) {
  auto acls = store_.load();
  acl_log().info("authorizer: {} ACL(s) loaded from {}, {} super user(s)", acls.size(), store_.file().string(),
                 super_users_.size());
  index_.store(std::make_shared<const AclIndex>(std::move(acls)));
}

bool Authorizer::is_super_user(std::string_view principal) const {
  return !super_users_.empty() && super_users_.contains(std::string(principal));
}

bool Authorizer::authorize(const Identity& who, AclOperation op, ResourceType type, std::string_view name) const {
  if (is_super_user(who.principal)) return true;
  switch (snapshot()->decide(who, op, type, name)) {
    case Decision::kAllowed:
      return true;
    case Decision::kDenied:
      return false;
    case Decision::kNoAcls:
      return allow_if_no_acls_;
  }
  return false;
}

bool Authorizer::authorize_any(const Identity& who, AclOperation op, ResourceType type) const {
  // As Kafka: a made-up name first, so super users (and the no-ACL default) pass.
  if (authorize(who, op, type, "hardcode")) return true;
  return snapshot()->allows_any(who, op, type);
}

int32_t Authorizer::authorized_operations(const Identity& who, ResourceType type, std::string_view name) const {
  int32_t supported = supported_operations(type);
  if (is_super_user(who.principal)) return supported;
  int32_t out = 0;
  for (int op = 0; op < kAclOperationCount; ++op)
    if ((supported >> op & 1) && authorize(who, static_cast<AclOperation>(op), type, name)) out |= int32_t{1} << op;
  return out;
}

int Authorizer::replace(std::vector<Acl> acls) {
  auto next = std::make_shared<const AclIndex>(std::move(acls));
  if (int rc = store_.save(next->all())) return rc;
  index_.store(std::move(next), std::memory_order_release);
  return 0;
}

std::vector<AclResult> Authorizer::create(const std::vector<Acl>& acls) {
  std::vector<AclResult> results(acls.size());
  std::lock_guard lock(write_mu_);
  auto current = snapshot();
  std::vector<Acl> next = current->all();
  std::vector<size_t> added;
  for (size_t i = 0; i < acls.size(); ++i) {
    if (auto why = validate_new_acl(acls[i])) {
      results[i] = {ErrorCode::kInvalidRequest, std::move(why), {}};
    } else if (!current->contains(acls[i])) {
      next.push_back(acls[i]);
      added.push_back(i);
    }
  }
  if (added.empty()) return results;
  if (int rc = replace(std::move(next))) {
    acl_log().error("authorizer: cannot store ACLs in {}: {}", store_.file().string(), std::strerror(rc));
    for (size_t i : added)
      results[i] = {ErrorCode::kUnknownServerError, "Unknown error while trying to create ACL", {}};
    return results;
  }
  for (size_t i : added) acl_log().info("authorizer: added ACL {}", escaped(acl_text(acls[i])));
  return results;
}

std::vector<AclResult> Authorizer::remove(const std::vector<AclFilter>& filters) {
  std::vector<AclResult> results(filters.size());
  std::lock_guard lock(write_mu_);
  auto current = snapshot();
  std::vector<bool> gone(current->all().size(), false);
  size_t total = 0;
  for (size_t f = 0; f < filters.size(); ++f) {
    for (size_t i = 0; i < current->all().size(); ++i) {
      const Acl& a = current->all()[i];
      if (!filters[f].matches(a)) continue;
      results[f].deleted.push_back(a);
      if (!gone[i]) ++total;
      gone[i] = true;
    }
  }
  if (total > kMaxDeletedPerRequest) {
    for (auto& r : results)
      r = {ErrorCode::kInvalidRequest, "Cannot remove more than 10000 acls in a single delete operation.", {}};
    return results;
  }
  if (total == 0) return results;
  std::vector<Acl> next;
  for (size_t i = 0; i < gone.size(); ++i)
    if (!gone[i]) next.push_back(current->all()[i]);
  if (int rc = replace(std::move(next))) {
    acl_log().error("authorizer: cannot store ACLs in {}: {}", store_.file().string(), std::strerror(rc));
    for (auto& r : results) r = {ErrorCode::kUnknownServerError, "Unknown error while trying to delete ACLs", {}};
    return results;
  }
  for (size_t i = 0; i < gone.size(); ++i)
    if (gone[i]) acl_log().info("authorizer: removed ACL {}", escaped(acl_text(current->all()[i])));
  return results;
}

std::vector<Acl> Authorizer::describe(const AclFilter& filter) const {
  std::vector<Acl> out;
  auto current = snapshot();
  for (const auto& a : current->all())
    if (filter.matches(a)) out.push_back(a);
  return out;
}

}  // namespace skiff::acl
