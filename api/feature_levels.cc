#include "api/feature_levels.h"

#include <stdexcept>

#include "common/file_fields.h"
#include "common/wall_clock.h"
#include "metadata/metadata_store.h"

namespace skiff::api {
namespace {

struct StoredLevel {
  std::string name;
  int16_t level;
};

std::vector<StoredLevel> decode_levels(const std::vector<std::string>& records) {
  std::vector<StoredLevel> out;
  for (const auto& r : records) {
    FieldReader in(r);
    StoredLevel s{in.string(), 0};
    const uint32_t level = in.uint32();
    if (!in.done()) throw std::runtime_error("bytes after a feature level");
    if (level > 0x7fff) throw std::runtime_error("feature level out of range");
    s.level = static_cast<int16_t>(level);
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

FeatureLevels::FeatureLevels(metadata::Namespace* store, std::span<const Feature> table)
    : table_(table),
      store_(store),
      levels_(std::make_unique<std::atomic<int16_t>[]>(table.size())),
      epoch_(wall_clock_ms()),
      set_(table.size(), false) {
  for (size_t i = 0; i < table_.size(); ++i) levels_[i].store(table_[i].default_level);
  if (!store_) return;
  for (const auto& s : store_->load(decode_levels)) {
    const int i = index_of(s.name);
    const bool supported =
        i >= 0 && (s.level == 0 || (s.level >= table_[i].min_supported && s.level <= table_[i].max_supported));
    if (!supported)
      throw metadata::Failure(store_->corrupt("the finalized level " + std::to_string(s.level) + " of feature " +
                                              s.name + " is not supported by this broker"));
    levels_[i].store(s.level);
    set_[i] = true;
  }
}

int FeatureLevels::index_of(std::string_view feature) const {
  for (size_t i = 0; i < table_.size(); ++i)
    if (table_[i].name == feature) return static_cast<int>(i);
  return -1;
}

int16_t FeatureLevels::level(std::string_view feature) const {
  const int i = index_of(feature);
  return i < 0 ? 0 : levels_[i].load(std::memory_order_acquire);
}

// Kafka checks each update against the current level; `proposed` collects
// the levels after them all.
std::optional<FeatureLevels::Refusal> FeatureLevels::check(const std::vector<Update>& updates,
                                                           std::vector<int16_t>& proposed, int32_t node_id) const {
  for (const auto& u : updates) {
    const int i = index_of(u.name);
    const int16_t current = i < 0 ? 0 : levels_[i].load();
    if (auto why = feature_update_refusal(table_, u.name, u.level, u.upgrade_type, node_id, current))
      return Refusal{ErrorCode::kInvalidUpdateVersion, *why};
    if (i >= 0) proposed[i] = u.level;
  }
  return std::nullopt;
}

bool FeatureLevels::store(const std::vector<int16_t>& proposed) {
  if (!store_) return true;
  std::vector<std::string> records;
  for (size_t i = 0; i < table_.size(); ++i) {
    if (!set_[i] && proposed[i] == levels_[i].load()) continue;
    std::string r;
    put_string_field(r, table_[i].name);
    put_be_field(r, static_cast<uint32_t>(proposed[i]), 4);
    records.push_back(std::move(r));
  }
  return static_cast<bool>(store_->write(records));
}

std::optional<FeatureLevels::Refusal> FeatureLevels::apply(const std::vector<Update>& updates, bool validate_only,
                                                           int32_t node_id) {
  std::lock_guard lock(apply_mu_);
  std::vector<int16_t> proposed(table_.size());
  for (size_t i = 0; i < table_.size(); ++i) proposed[i] = levels_[i].load();
  if (auto refusal = check(updates, proposed, node_id)) return refusal;
  if (validate_only) return std::nullopt;
  std::vector<size_t> changed;
  for (size_t i = 0; i < table_.size(); ++i)
    if (proposed[i] != levels_[i].load()) changed.push_back(i);
  if (changed.empty()) return std::nullopt;
  if (!store(proposed))
    return Refusal{ErrorCode::kKafkaStorageError, "The feature levels could not be written to the metadata store."};
  for (size_t i : changed) {
    set_[i] = true;
    levels_[i].store(proposed[i], std::memory_order_release);
  }
  epoch_.store(std::max(epoch_.load() + 1, wall_clock_ms()), std::memory_order_release);
  for (size_t i : changed)
    for (const auto& l : listeners_) l(table_[i].name, proposed[i]);
  return std::nullopt;
}

}  // namespace skiff::api
