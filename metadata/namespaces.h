// The one list of Skiff's durable small cluster state: every namespace of
// the MetadataStore (metadata/metadata_store.h) with its file name, its
// current record version, whether it holds secrets, and the file it lived in
// before the store (read once by metadata/legacy_migration.h, then removed).
// Every state file name the broker knows outside log/ is here; log/ keeps
// what Kafka keeps beside the partitions (skiff-topics, meta.properties, the
// checkpoints).
//
// On disk, in the first log dir:
//   <log dir>/skiff-metadata/<name>        one file per namespace
//   <log dir>/skiff-metadata/<name>.tmp    a write in progress (removed on open)
// The directory name holds no partition ("metadata" is not a number), so the
// LogManager's scan of the log dir passes it by.
//
// The version rule: `version` is the record version this binary writes. A
// file with a newer version is refused (the broker does not start); an
// older one is handed to the owner, which upgrades its records and writes
// them back at `version`. Raise `version` only with that upgrade in the
// owner. Header-only constants; no thread rules.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace skiff::metadata {

// The store's directory, in the first log dir.
inline constexpr std::string_view kStoreDir = "skiff-metadata";

struct NamespaceDef {
  std::string_view name;         // the file under kStoreDir: [a-z0-9-]
  int16_t version = 1;           // the record version this binary writes
  std::string_view legacy_file;  // its file in the log dir before the store
  bool secret = false;           // file mode 0600 (SCRAM credentials)
};

// security/acl/acl_store.h
inline constexpr NamespaceDef kAcls{"acls", 1, "skiff-acls", false};
// security/sasl/scram_store.h
inline constexpr NamespaceDef kScramCredentials{"scram-credentials", 1, "skiff-scram-credentials", true};
// api/quota/client_quota_store.h
inline constexpr NamespaceDef kClientQuotas{"client-quotas", 1, "skiff-client-quotas", false};
// api/telemetry/client_metrics_subscriptions.h
inline constexpr NamespaceDef kClientMetrics{"client-metrics", 1, "skiff-client-metrics", false};
// coordinator/group/group_dynamic_config.h
inline constexpr NamespaceDef kGroupConfigs{"group-configs", 1, "skiff-group-configs", false};
// server/dynamic_config_wiring.h (config/dynamic_broker_config.h's values)
inline constexpr NamespaceDef kDynamicBrokerConfig{"dynamic-broker-config", 1, "skiff-dynamic-broker-config", false};
// coordinator/txn/producer_id_blocks.h
inline constexpr NamespaceDef kProducerIds{"producer-ids", 1, "skiff-producer-ids", false};
// api/feature_levels.h (born in the store: no legacy file)
inline constexpr NamespaceDef kFeatureLevels{"feature-levels", 1, "", false};
// security/sasl/delegation_tokens.h (born in the store: no legacy file)
inline constexpr NamespaceDef kDelegationTokens{"delegation-tokens", 1, "", true};

inline constexpr std::array<NamespaceDef, 9> kNamespaces = {kAcls,          kScramCredentials, kClientQuotas,
                                                            kClientMetrics, kGroupConfigs,     kDynamicBrokerConfig,
                                                            kProducerIds,   kFeatureLevels,    kDelegationTokens};

}  // namespace skiff::metadata
