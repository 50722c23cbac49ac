// The broker's SCRAM credentials at startup: the store of the first log dir
// ("skiff-scram-credentials") loaded, then the scram.bootstrap.users
// credentials (config/scram_config_def.cc) that are missing created, so the first
// admin user of a fresh container exists, and a password changed since
// through AlterUserScramCredentials is kept across restarts. One log line per
// created credential (user and mechanism, never the password).
// Thread rules: startup only, before requests flow.
#pragma once

#include <memory>
#include <vector>

#include "config/broker_config.h"
#include "security/sasl/scram_store.h"

namespace skiff::sasl {

inline constexpr const char* kScramCredentialsFile = "skiff-scram-credentials";

// Creates each listed credential the user lacks for its mechanism, with a
// fresh random salt, in one durable write. Returns how many it created.
// Throws std::runtime_error when the write fails.
int add_bootstrap_users(ScramCredentialStore& store, const std::vector<config::ScramBootstrapUser>& users);

// The loaded store with the bootstrap users added. Throws std::runtime_error
// (the broker refuses to start) when the file is corrupt or cannot be written.
std::shared_ptr<ScramCredentialStore> open_scram_store(const config::BrokerConfig& config);

}  // namespace skiff::sasl
