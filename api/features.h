// The feature flags this broker supports (KIP-584): each feature's
// supported level range, as ApiVersions v3+ advertises it, and the level a
// new cluster finalizes. The finalized levels themselves, which
// UpdateFeatures changes, are api/feature_levels.h's.
//
// A feature is listed only when Skiff really implements the behaviour its
// levels stand for; adding one is one line in kFeatures in features.cc.
// The table is constant: safe to read from every thread.
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
  int16_t default_level;  // finalized until an UpdateFeatures changes it
};

std::span<const Feature> features();
const Feature* find_feature(std::string_view name, std::span<const Feature> table = features());

// UpdateFeatures' check of one update against `table` and the feature's
// `current` finalized level (0: not finalized), as Kafka's controller makes
// it (FeatureControlManager.updateFeature) and with its messages ("Invalid
// update version L for feature F. ..."); `upgrade_type` 1 upgrade, 2 safe
// downgrade, 3 unsafe downgrade. Nothing when the update may be applied,
// else why not.
std::optional<std::string> feature_update_refusal(std::span<const Feature> table, const std::string& name,
                                                  int16_t level, int8_t upgrade_type, int32_t node_id, int16_t current);

}  // namespace skiff::api
