// ClientQuotaStore: the client quota configs, entity -> {key: value}, as
// Kafka's ClientQuotaControlManager keeps them (KIP-546: DescribeClientQuotas
// and AlterClientQuotas; `kafka-configs --entity-type users|clients|ips`).
//
// Entities are Kafka's: a set of (type, name) with type "user", "client-id"
// or "ip", and a null name meaning the type's default entity. Valid shapes:
// {user}, {client-id}, {user, client-id}, {ip}. Keys: producer_byte_rate,
// consumer_byte_rate, request_percentage and controller_mutation_rate for
// user/client-id entities; connection_creation_rate for ip entities.
//
// Durable in the "client-quotas" namespace of the metadata store
// (metadata/metadata_store.h), replaced whole on every change, crash-safely;
// a change is published in memory only once it is stored, and a failed write
// changes nothing. One record per entity, version 1 (integers big-endian):
//   parts   int8 count, then per part: type int8 (0 user, 1 client-id, 2 ip),
//           has_name int8, [name: int32 length + UTF-8 bytes]
//   values  int32 count, then per value: key int32 length + bytes,
//           value float64 (IEEE 754 bits, big-endian)
// A record that does not parse is corruption: the constructor throws and the
// broker refuses to start.
//
// Thread rules: thread-safe. Readers (resolve, describe; every request when
// quotas exist) take a shared lock; alter() is serialised, writes the file,
// then swaps the map in under the exclusive lock and bumps generation().
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "metadata/metadata_store.h"
#include "protocol/error_codes.h"

namespace skiff::api::quota {

inline constexpr std::string_view kUser = "user";
inline constexpr std::string_view kClientId = "client-id";
inline constexpr std::string_view kIp = "ip";

inline constexpr std::string_view kProducerByteRate = "producer_byte_rate";
inline constexpr std::string_view kConsumerByteRate = "consumer_byte_rate";
inline constexpr std::string_view kRequestPercentage = "request_percentage";
inline constexpr std::string_view kControllerMutationRate = "controller_mutation_rate";
inline constexpr std::string_view kConnectionCreationRate = "connection_creation_rate";

// type -> name; a null name is the type's default entity. Ordered, so that
// entities compare and print the same way everywhere.
using QuotaEntity = std::map<std::string, std::optional<std::string>, std::less<>>;
using QuotaValues = std::map<std::string, double, std::less<>>;

struct QuotaOp {
  std::string key;
  double value = 0;
  bool remove = false;
};

struct QuotaAlteration {
  QuotaEntity entity;
  std::vector<QuotaOp> ops;
};

struct QuotaError {
  ErrorCode error = ErrorCode::kNone;
  std::string message;  // empty when error is kNone
};

// One component of a DescribeClientQuotas filter.
struct QuotaFilterComponent {
  static constexpr int8_t kExact = 0;    // the entity named `match`
  static constexpr int8_t kDefault = 1;  // the type's default entity
  // Any entity of the type, the default one included: Kafka's
  // ClientQuotasImage only checks that the type is there.
  static constexpr int8_t kSpecified = 2;
  std::string entity_type;
  int8_t match_type = kExact;
  std::optional<std::string> match;
};

struct DescribedQuotas {
  QuotaError error;
  std::vector<std::pair<QuotaEntity, QuotaValues>> entries;
};

// A user/client-id quota found for a client, and the shape of the entity it
// came from: the throttling keeps one rate per (user if by_user, client-id
// if by_client_id), as Kafka's metric tags do.
struct ResolvedQuota {
  double value = 0;
  bool by_user = false;
  bool by_client_id = false;
};

class ClientQuotaStore {
 public:
  // Loads the stored quotas (none yet: no quotas). Throws metadata::Failure
  // naming the file when they do not parse. A null namespace keeps them in
  // memory only (tests).
  explicit ClientQuotaStore(metadata::Namespace* ns);

  // AlterClientQuotas: one result per alteration, in order. Each is
  // validated as Kafka validates it (INVALID_REQUEST with Kafka's message for
  // a bad entity, key or value); the valid ones are applied together, once,
  // unless validate_only. A failed file write answers every valid one
  // UNKNOWN_SERVER_ERROR and changes nothing.
  std::vector<QuotaError> alter(const std::vector<QuotaAlteration>& alterations, bool validate_only);

  // DescribeClientQuotas: the entities matching every component (strict:
  // and no other entity types), with all their values. A bad filter is
  // INVALID_REQUEST (UNSUPPORTED_VERSION for an unknown entity type) with
  // Kafka's message, and no entries.
  DescribedQuotas describe(const std::vector<QuotaFilterComponent>& components, bool strict) const;

  // The quota `key` for a client, looked up in Kafka's order
  // (DefaultQuotaCallback): user+client-id, user+default client-id, user,
  // default user+client-id, default user+default client-id, default user,
  // client-id, default client-id. `user` is the principal's name. As Kafka's
  // metric tags: an empty client-id looks at the user levels only, an empty
  // user at the client-id levels only.
  std::optional<ResolvedQuota> resolve(std::string_view key, std::string_view user, std::string_view client_id) const;
  // connection_creation_rate for an IP: the IP's own entity, else the
  // default ip entity. Addresses compare as addresses ("::ffff:127.0.0.1"
  // is 127.0.0.1, as Java's InetAddress).
  std::optional<double> resolve_ip(std::string_view ip) const;

  // Whether any entity sets `key` (throttling is skipped entirely when not).
  bool has_key(std::string_view key) const;
  // Changes with every applied alteration.
  uint64_t generation() const { return generation_.load(std::memory_order_acquire); }

 private:
  using Map = std::map<QuotaEntity, QuotaValues>;

  // Swaps `next` in with its indexes; the caller holds mu_ exclusively.
  void publish(Map next);

  metadata::Namespace* ns_;
  std::mutex alter_mu_;           // one alter() at a time
  mutable std::shared_mutex mu_;  // guards map_ and the indexes below
  Map map_;
  // map_ indexed for the per-request lookups (no allocation of a
  // QuotaEntity per level): user/client-id entities by their encoded shape
  // (client_quota_store.cc, shape_key), ip entities by canonical address.
  std::unordered_map<std::string, QuotaValues> by_shape_;
  std::unordered_map<std::string, double> ip_rates_;
  std::optional<double> default_ip_rate_;
  std::map<std::string, int, std::less<>> key_counts_;  // key -> entities setting it
  std::atomic<uint64_t> generation_{0};
};

}  // namespace skiff::api::quota
