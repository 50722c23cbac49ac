// The broker's SCRAM credentials at startup: the "scram-credentials"
// namespace of the metadata store loaded, then the scram.bootstrap.users
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

// Creates each listed credential the user lacks for its mechanism, with a
// fresh random salt, in one durable write. Returns how many it created.
// Throws std::runtime_error when the write fails.
int add_bootstrap_users(ScramCredentialStore& store, const std::vector<config::ScramBootstrapUser>& users);

// The loaded store with the bootstrap users added. Throws std::runtime_error
// (the broker refuses to start) when the stored credentials are corrupt or
// cannot be written.
std::shared_ptr<ScramCredentialStore> open_scram_store(const config::BrokerConfig& config, metadata::Namespace& ns);

}  // namespace skiff::sasl
