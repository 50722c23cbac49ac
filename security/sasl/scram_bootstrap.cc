#include "security/sasl/scram_bootstrap.h"

#include <fmt/format.h>

#include <cstring>
#include <stdexcept>

#include "common/log_escape.h"
#include "common/subsystem_logger.h"

namespace skiff::sasl {
namespace {

constexpr size_t kSaltBytes = 32;

spdlog::logger& sasl_log() {
  static const std::shared_ptr<spdlog::logger> logger = subsystem_logger("sasl");
  return *logger;
}

}  // namespace

int add_bootstrap_users(ScramCredentialStore& store, const std::vector<config::ScramBootstrapUser>& users) {
  std::vector<ScramCredentialChange> changes;
  for (const auto& u : users) {
    auto m = mechanism_from_name(u.mechanism);
    if (!m) throw std::runtime_error(fmt::format("scram.bootstrap.users: unknown mechanism '{}'", u.mechanism));
    if (store.lookup(u.name, *m)) continue;
    int32_t iterations = u.iterations > 0 ? u.iterations : kScramMinIterations;
    changes.push_back({u.name, *m, make_credential(*m, u.password, iterations, random_bytes(kSaltBytes))});
  }
  if (changes.empty()) return 0;
  if (int rc = store.apply(changes))
    throw std::runtime_error(
        fmt::format("cannot store the scram.bootstrap.users credentials in {}: {}", store.where(), std::strerror(rc)));
  for (const auto& c : changes)
    sasl_log().info("created the {} credential of user {} (scram.bootstrap.users)", mechanism_name(c.mechanism),
                    escaped(c.user));
  return static_cast<int>(changes.size());
}

std::shared_ptr<ScramCredentialStore> open_scram_store(const config::BrokerConfig& config, metadata::Namespace& ns) {
  auto store = std::make_shared<ScramCredentialStore>(&ns);
  store->load();
  add_bootstrap_users(*store, config.scram_bootstrap_users);
  return store;
}

}  // namespace skiff::sasl
