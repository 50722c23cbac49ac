// The feature flags this broker finalizes (KIP-584), as ApiVersions v3+
// advertises them and UpdateFeatures checks against them.
//
// A feature is listed only when Skiff really implements the behaviour its
// level stands for; adding one (transaction.version, group.version, ...) is
// one line in kFeatures in features.cc. Levels are fixed by the build: a
// running broker never changes them, so the table is constant and safe to
// read from every thread.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace skiff::api {

struct Feature {
  std::string_view name;
  int16_t min_supported;  // SupportedFeatures range
  int16_t max_supported;
  int16_t finalized;  // FinalizedFeatures: min and max level are both this
};

std::span<const Feature> features();
const Feature* find_feature(std::string_view name, std::span<const Feature> table = features());

// UpdateFeatures' check of one update against `table`, as Kafka's controller
// makes it and with its messages ("Invalid update version L for feature F.
// ..."); `upgrade_type` 1 upgrade, 2 safe downgrade, 3 unsafe downgrade.
// Levels are fixed, so only the finalized level itself passes (a no-op);
// nothing when it does, else why not.
std::optional<std::string> feature_update_refusal(std::span<const Feature> table, const std::string& name,
                                                  int16_t level, int8_t upgrade_type, int32_t node_id);

}  // namespace skiff::api
