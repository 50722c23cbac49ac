// FeatureLevels: the finalized level of every feature (KIP-584) as this
// broker serves it now. ApiVersions advertises the levels, UpdateFeatures
// changes them, and the behaviour behind a level reads it live:
//   share.version        1+: the share-group APIs (76-79, 90-92; else
//                        UNSUPPORTED_VERSION, KafkaApis' feature gates);
//                        2+: their dead-letter queue; dropping below 1
//                        drops every share session and cached share partition
//   group.version        1+: ConsumerGroupHeartbeat and ConsumerGroupDescribe
//   streams.version      1+: StreamsGroupHeartbeat, StreamsGroupDescribe and
//                        StreamsGroupTopologyDescriptionUpdate (88, 89, 93)
//   transaction.version  the transaction coordinator's rules (epoch bumps
//                        on abort, the state record version)
//   metadata.version     one level (25); an update to it is a no-op
//
// Kafka's controller rules (FeatureControlManager.updateFeatures): the
// updates of one request are checked in order against the levels as they
// would be; one refused refuses them all; level 0 un-finalizes a feature
// (ApiVersions then leaves it out of FinalizedFeatures).
//
// Durable in the metadata store, namespace feature-levels
// (metadata/namespaces.h): one record per feature whose level an update
// set, `name string | level uint32` (common/file_fields.h), written whole on
// every change before it is published. A feature with no record is at its
// default level (api/features.h). A stored level outside the supported
// range (a data dir from a newer Skiff) is refused at startup, as Kafka
// refuses to start a broker that does not support a finalized level.
//
// Threads: level() and epoch() are lock-free reads from any thread; apply()
// calls are serialised by a mutex, and the listeners run on the applying
// thread after the change is durable and published.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "api/features.h"
#include "protocol/error_codes.h"

namespace skiff::metadata {
class Namespace;
}

namespace skiff::api {

class FeatureLevels {
 public:
  struct Update {
    std::string name;
    int16_t level = 0;
    int8_t upgrade_type = 1;  // 1 upgrade, 2 safe downgrade, 3 unsafe downgrade
  };
  struct Refusal {
    ErrorCode code = ErrorCode::kInvalidUpdateVersion;
    std::string message;
  };
  using Listener = std::function<void(std::string_view feature, int16_t level)>;

  // Loads the stored levels; throws metadata::Failure on a corrupt file or
  // an unsupported stored level. `store` null: defaults, changes in memory
  // only (tests).
  explicit FeatureLevels(metadata::Namespace* store, std::span<const Feature> table = features());
  FeatureLevels(const FeatureLevels&) = delete;
  FeatureLevels& operator=(const FeatureLevels&) = delete;

  std::span<const Feature> table() const { return table_; }
  // The finalized level; 0 for a feature not finalized or not known.
  int16_t level(std::string_view feature) const;
  // FinalizedFeaturesEpoch: raised by every applied change.
  int64_t epoch() const { return epoch_.load(std::memory_order_acquire); }

  // Checks every update, then (unless validate_only) stores and publishes
  // them together. Nothing when they are (or would be) applied.
  std::optional<Refusal> apply(const std::vector<Update>& updates, bool validate_only, int32_t node_id);

  // Called with every changed feature's new level. Register before serving.
  void on_change(Listener listener) { listeners_.push_back(std::move(listener)); }

 private:
  int index_of(std::string_view feature) const;
  std::optional<Refusal> check(const std::vector<Update>& updates, std::vector<int16_t>& proposed,
                               int32_t node_id) const;
  bool store(const std::vector<int16_t>& proposed);

  const std::span<const Feature> table_;
  metadata::Namespace* const store_;
  std::unique_ptr<std::atomic<int16_t>[]> levels_;
  std::atomic<int64_t> epoch_;
  std::mutex apply_mu_;
  std::vector<bool> set_;  // guarded by apply_mu_: levels an update set (stored)
  std::vector<Listener> listeners_;
};

}  // namespace skiff::api
