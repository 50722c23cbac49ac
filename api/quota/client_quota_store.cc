#include "api/quota/client_quota_store.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <span>
#include <stdexcept>

#include "common/file_fields.h"
#include "common/ip_address.h"

namespace skiff::api::quota {
namespace {

// The quota keys and their ConfigDef types, as Kafka's QuotaConfig:
// userAndClientQuotaConfigs() and ipConfigs().
enum class KeyType { kLong, kInt, kDouble };
struct KeyDef {
  std::string_view name;
  KeyType type;
};
constexpr KeyDef kUserClientKeys[] = {{kProducerByteRate, KeyType::kLong},
                                      {kConsumerByteRate, KeyType::kLong},
                                      {kRequestPercentage, KeyType::kDouble},
                                      {kControllerMutationRate, KeyType::kDouble}};
constexpr KeyDef kIpKeys[] = {{kConnectionCreationRate, KeyType::kInt}};

// ----------------------------------------------------------------------------
// Java's HashMap iteration order. Kafka validates an entity's types and an
// alteration's keys walking HashMaps, so which error is reported first, and
// how an entity prints, follow it.

int32_t java_string_hash(std::string_view s) {
  uint32_t h = 0;
  for (unsigned char c : s) h = 31 * h + c;  // ASCII; other bytes as Latin-1 (an approximation)
  return static_cast<int32_t>(h);
}

// The order a `new HashMap<>(initial)` filled with `keys` (in that order,
// repeats overwriting) iterates them: indices into `keys`, first occurrences.
std::vector<size_t> java_hash_order(const std::vector<std::string_view>& keys, size_t initial) {
  std::vector<size_t> distinct;
  for (size_t i = 0; i < keys.size(); ++i)
    if (std::none_of(distinct.begin(), distinct.end(), [&](size_t j) { return keys[j] == keys[i]; }))
      distinct.push_back(i);
  size_t cap = std::bit_ceil(std::max<size_t>(initial, 1));
  for (size_t size = 1; size <= distinct.size(); ++size)
    if (size > cap * 3 / 4) cap *= 2;
  auto bucket = [cap](std::string_view k) {
    auto h = static_cast<uint32_t>(java_string_hash(k));
    return (h ^ (h >> 16)) & (cap - 1);
  };
  std::stable_sort(distinct.begin(), distinct.end(),
                   [&](size_t a, size_t b) { return bucket(keys[a]) < bucket(keys[b]); });
  return distinct;
}

std::vector<std::pair<std::string_view, const std::optional<std::string>*>> java_entries(const QuotaEntity& entity) {
  std::vector<std::string_view> types;
  for (const auto& [type, name] : entity) types.push_back(type);
  std::vector<std::pair<std::string_view, const std::optional<std::string>*>> out;
  for (size_t i : java_hash_order(types, entity.size())) out.emplace_back(types[i], &entity.find(types[i])->second);
  return out;
}

// ClientQuotaEntity.toString(): "ClientQuotaEntity(entries={client-id=c, user=u})".
std::string entity_text(const QuotaEntity& entity) {
  std::string out = "ClientQuotaEntity(entries={";
  bool first = true;
  for (const auto& [type, name] : java_entries(entity)) {
    out += fmt::format("{}{}={}", first ? "" : ", ", type, name->has_value() ? std::string_view(**name) : "null");
    first = false;
  }
  return out + "})";
}

QuotaError invalid(std::string message) { return {ErrorCode::kInvalidRequest, std::move(message)}; }

// ClientQuotaControlManager.validateEntity.
QuotaError check_entity_types(const QuotaEntity& entity) {
  if (entity.empty()) return invalid("Invalid empty client quota entity");
  for (const auto& [type, name] : java_entries(entity)) {
    if (type != kUser && type != kClientId && type != kIp)
      return invalid(fmt::format("Unhandled client quota entity type: {}", type));
    if (name->has_value() && (*name)->empty()) return invalid(fmt::format("Empty {} not supported", type));
  }
  return {};
}

// ClientQuotaControlManager.configKeysForEntityType: the keys the entity's
// shape allows, or the error. Kafka's message lacks a space ("shouldnot").
QuotaError keys_for_entity(const QuotaEntity& entity, std::span<const KeyDef>& keys) {
  auto ip = entity.find(kIp);
  if (ip != entity.end()) {
    if (entity.size() > 1)
      return invalid("Invalid quota entity combination, IP entity shouldnot be combined with User or ClientId");
    if (ip->second && !canonical_ip(*ip->second))
      return invalid(fmt::format("{} is not a valid IP or resolvable host.", *ip->second));
    keys = kIpKeys;
    return {};
  }
  keys = kUserClientKeys;
  return {};
}

QuotaError check_entity(const QuotaEntity& entity, std::span<const KeyDef>& keys) {
  QuotaError e = check_entity_types(entity);
  return e.error != ErrorCode::kNone ? e : keys_for_entity(entity, keys);
}

// ClientQuotaControlManager.validateQuotaKeyValue (Kafka 4.4's, which also
// refuses NaN and infinities).
QuotaError check_value(std::span<const KeyDef> keys, const std::string& key, double value) {
  auto def = std::find_if(keys.begin(), keys.end(), [&](const KeyDef& k) { return k.name == key; });
  if (def == keys.end()) return invalid(fmt::format("Invalid configuration key {}", key));
  if (!std::isfinite(value)) return invalid(fmt::format("Quota {} must be a finite number", key));
  if (value <= 0.0) return invalid(fmt::format("Quota {} must be greater than 0", key));
  if (def->type == KeyType::kDouble) return {};
  if (def->type == KeyType::kInt && value > static_cast<double>(std::numeric_limits<int32_t>::max()))
    return invalid(fmt::format("Proposed value for {} is too large for an INT.", key));
  if (def->type == KeyType::kLong && value > static_cast<double>(std::numeric_limits<int64_t>::max()))
    return invalid(fmt::format("Proposed value for {} is too large for a LONG.", key));
  if (std::abs(std::fmod(value, 1.0)) > 1e-6) return invalid(fmt::format("{} cannot be a fractional value.", key));
  return {};
}

// One alteration checked and, when valid, applied to `next`
// (ClientQuotaControlManager.alterClientQuotaEntity). Values are checked in
// the order Kafka's HashMap of the ops walks them; removals are not checked.
QuotaError apply_one(const QuotaAlteration& alt, std::map<QuotaEntity, QuotaValues>& next) {
  std::span<const KeyDef> keys;
  if (QuotaError e = check_entity(alt.entity, keys); e.error != ErrorCode::kNone) return e;
  std::vector<std::string_view> names;
  for (const auto& op : alt.ops) names.push_back(op.key);
  const auto order = java_hash_order(names, alt.ops.size());
  for (size_t i : order)
    if (!alt.ops[i].remove)
      if (QuotaError e = check_value(keys, alt.ops[i].key, alt.ops[i].value); e.error != ErrorCode::kNone) return e;
  QuotaValues& values = next[alt.entity];
  for (size_t i : order) {
    if (alt.ops[i].remove)
      values.erase(alt.ops[i].key);
    else
      values.insert_or_assign(alt.ops[i].key, alt.ops[i].value);
  }
  if (values.empty()) next.erase(alt.entity);
  return {};
}

bool repeats_a_key(const QuotaAlteration& alt) {
  std::set<std::string_view> seen;
  return std::any_of(alt.ops.begin(), alt.ops.end(), [&](const QuotaOp& op) { return !seen.insert(op.key).second; });
}

// ----------------------------------------------------------------------------
// The records.

constexpr int8_t type_code(std::string_view type) { return type == kUser ? 0 : type == kClientId ? 1 : 2; }

std::vector<std::string> encode(const std::map<QuotaEntity, QuotaValues>& map) {
  std::vector<std::string> records;
  for (const auto& [entity, values] : map) {
    std::string out;
    out.push_back(static_cast<char>(entity.size()));
    for (const auto& [type, name] : entity) {
      out.push_back(static_cast<char>(type_code(type)));
      out.push_back(static_cast<char>(name ? 1 : 0));
      if (name) put_string_field(out, *name);
    }
    put_be_field(out, static_cast<uint32_t>(values.size()), 4);
    for (const auto& [key, value] : values) {
      put_string_field(out, key);
      const auto bits = std::bit_cast<uint64_t>(value);
      put_be_field(out, static_cast<uint32_t>(bits >> 32), 4);
      put_be_field(out, static_cast<uint32_t>(bits), 4);
    }
    records.push_back(std::move(out));
  }
  return records;
}

QuotaEntity read_entity(FieldReader& in) {
  static constexpr std::string_view kTypes[] = {kUser, kClientId, kIp};
  QuotaEntity entity;
  const int8_t parts = in.int8();
  for (int8_t i = 0; i < parts; ++i) {
    const int8_t type = in.int8();
    if (type < 0 || type > 2) throw std::runtime_error(fmt::format("unknown entity type {}", type));
    const int8_t has_name = in.int8();
    std::optional<std::string> name;
    if (has_name) name = in.string();
    if (!entity.emplace(std::string(kTypes[type]), std::move(name)).second)
      throw std::runtime_error(fmt::format("entity type {} twice", kTypes[type]));
  }
  return entity;
}

std::pair<QuotaEntity, QuotaValues> read_record(std::string_view record) {
  FieldReader in(record);
  QuotaEntity entity = read_entity(in);
  std::span<const KeyDef> keys;
  if (QuotaError e = check_entity(entity, keys); e.error != ErrorCode::kNone)
    throw std::runtime_error(fmt::format("invalid entity: {}", e.message));
  QuotaValues values;
  const uint32_t count = in.uint32();
  for (uint32_t i = 0; i < count; ++i) {
    std::string key = in.string();
    const uint64_t high = in.uint32();
    const double value = std::bit_cast<double>(high << 32 | in.uint32());
    if (std::none_of(keys.begin(), keys.end(), [&](const KeyDef& k) { return k.name == key; }))
      throw std::runtime_error(fmt::format("key {} for {}", key, entity_text(entity)));
    if (!values.emplace(std::move(key), value).second)
      throw std::runtime_error(fmt::format("a key twice for {}", entity_text(entity)));
  }
  if (values.empty()) throw std::runtime_error(fmt::format("no values for {}", entity_text(entity)));
  if (!in.done()) throw std::runtime_error(fmt::format("bytes after {}", entity_text(entity)));
  return {std::move(entity), std::move(values)};
}

std::map<QuotaEntity, QuotaValues> decode(const std::vector<std::string>& records) {
  std::map<QuotaEntity, QuotaValues> map;
  for (const auto& record : records) {
    auto [entity, values] = read_record(record);
    if (map.contains(entity)) throw std::runtime_error(fmt::format("{} twice", entity_text(entity)));
    map.emplace(std::move(entity), std::move(values));
  }
  return map;
}

// ----------------------------------------------------------------------------
// Lookups.

// A user/client-id entity's shape as one string: per type, '-' absent, '*'
// the default, '=' and the name, length-prefixed.
void add_part(std::string& out, const std::optional<std::optional<std::string_view>>& part) {
  if (!part) {
    out.push_back('-');
  } else if (!*part) {
    out.push_back('*');
  } else {
    out.push_back('=');
    put_string_field(out, **part);
  }
}

std::string shape_key(const std::optional<std::optional<std::string_view>>& user,
                      const std::optional<std::optional<std::string_view>>& client_id) {
  std::string out;
  add_part(out, user);
  add_part(out, client_id);
  return out;
}

std::optional<std::optional<std::string_view>> part_of(const QuotaEntity& entity, std::string_view type) {
  auto it = entity.find(type);
  if (it == entity.end()) return std::nullopt;
  return it->second ? std::optional<std::string_view>(*it->second) : std::nullopt;
}

}  // namespace

ClientQuotaStore::ClientQuotaStore(metadata::Namespace* ns) : ns_(ns) {
  if (!ns_) return;
  Map loaded = ns_->load(decode);
  std::unique_lock lock(mu_);
  publish(std::move(loaded));
}

void ClientQuotaStore::publish(Map next) {
  map_ = std::move(next);
  by_shape_.clear();
  ip_rates_.clear();
  default_ip_rate_.reset();
  key_counts_.clear();
  for (const auto& [entity, values] : map_) {
    for (const auto& [key, value] : values) ++key_counts_[key];
    auto ip = entity.find(kIp);
    if (ip == entity.end()) {
      by_shape_.emplace(shape_key(part_of(entity, kUser), part_of(entity, kClientId)), values);
      continue;
    }
    auto rate = values.find(kConnectionCreationRate);
    if (rate == values.end()) continue;
    if (!ip->second)
      default_ip_rate_ = rate->second;
    else if (auto canonical = canonical_ip(*ip->second))
      ip_rates_[*canonical] = rate->second;
  }
}

std::vector<QuotaError> ClientQuotaStore::alter(const std::vector<QuotaAlteration>& alterations, bool validate_only) {
  std::lock_guard writer(alter_mu_);
  Map next = map_;  // only alter() changes map_, and alter_mu_ is held
  std::vector<QuotaError> results;
  std::set<QuotaEntity> seen;
  // ClientQuotaControlManager.alterClientQuotas: an entity named before in
  // the request, or with a key twice, is ignored (Kafka's message for both).
  for (const auto& alt : alterations) {
    if (repeats_a_key(alt) || seen.contains(alt.entity))
      results.push_back(invalid(fmt::format("Ignoring duplicate entity {}", entity_text(alt.entity))));
    else
      results.push_back(apply_one(alt, next));
    seen.insert(alt.entity);
  }
  if (validate_only || next == map_) return results;
  if (ns_ && !ns_->write(encode(next))) {  // the store logged why
    for (auto& r : results)
      if (r.error == ErrorCode::kNone)
        r = {ErrorCode::kUnknownServerError, "The server experienced an unexpected error when processing the request."};
    return results;
  }
  std::unique_lock lock(mu_);
  publish(std::move(next));
  generation_.fetch_add(1, std::memory_order_acq_rel);
  return results;
}

namespace {

// ClientQuotasImage.describe's checks of the filter; fills the exact
// (type -> name, null: the default) and type-only matches.
QuotaError check_filter(const std::vector<QuotaFilterComponent>& components,
                        std::map<std::string, std::optional<std::string>, std::less<>>& exact,
                        std::set<std::string, std::less<>>& typed) {
  for (const auto& c : components) {
    if (c.entity_type.empty()) return invalid("Invalid empty entity type.");
    if (exact.contains(c.entity_type) || typed.contains(c.entity_type))
      return invalid(fmt::format("Entity type {} cannot appear more than once in the filter.", c.entity_type));
    if (c.entity_type != kIp && c.entity_type != kUser && c.entity_type != kClientId)
      return {ErrorCode::kUnsupportedVersion, fmt::format("Unsupported entity type {}", c.entity_type)};
    if (c.match_type == QuotaFilterComponent::kExact) {
      if (!c.match) return invalid("Request specified MATCH_TYPE_EXACT, but set match string to null.");
      exact[c.entity_type] = c.match;
    } else if (c.match_type == QuotaFilterComponent::kDefault) {
      if (c.match) return invalid("Request specified MATCH_TYPE_DEFAULT, but also specified a match string.");
      exact[c.entity_type] = std::nullopt;
    } else if (c.match_type == QuotaFilterComponent::kSpecified) {
      if (c.match) return invalid("Request specified MATCH_TYPE_SPECIFIED, but also specified a match string.");
      typed.emplace(c.entity_type);
    } else {
      return invalid(fmt::format("Unknown match type {}", c.match_type));
    }
  }
  auto has = [&](std::string_view t) { return exact.contains(t) || typed.contains(t); };
  if (has(kIp) && (has(kUser) || has(kClientId)))
    return invalid(
        "Invalid entity filter component combination. IP filter component should not be used with user or clientId "
        "filter component.");
  return {};
}

}  // namespace

DescribedQuotas ClientQuotaStore::describe(const std::vector<QuotaFilterComponent>& components, bool strict) const {
  DescribedQuotas out;
  std::map<std::string, std::optional<std::string>, std::less<>> exact;
  std::set<std::string, std::less<>> typed;
  out.error = check_filter(components, exact, typed);
  if (out.error.error != ErrorCode::kNone) return out;
  auto matches = [&](const QuotaEntity& entity) {
    if (strict && entity.size() != exact.size() + typed.size()) return false;
    for (const auto& [type, name] : exact) {
      auto it = entity.find(type);
      if (it == entity.end() || it->second != name) return false;
    }
    return std::all_of(typed.begin(), typed.end(), [&](const std::string& t) { return entity.contains(t); });
  };
  std::shared_lock lock(mu_);
  for (const auto& [entity, values] : map_)
    if (matches(entity)) out.entries.emplace_back(entity, values);
  return out;
}

std::optional<ResolvedQuota> ClientQuotaStore::resolve(std::string_view key, std::string_view user,
                                                       std::string_view client_id) const {
  using Part = std::optional<std::optional<std::string_view>>;
  const Part named_user = std::optional<std::string_view>(user);
  const Part named_client = std::optional<std::string_view>(client_id);
  const Part default_part = std::optional<std::string_view>();
  const Part absent;
  struct Level {
    const Part& user;
    const Part& client_id;
    bool by_user;
    bool by_client_id;
  };
  // DefaultQuotaCallback's eight levels, in order.
  const Level levels[] = {{named_user, named_client, true, true},   {named_user, default_part, true, true},
                          {named_user, absent, true, false},        {default_part, named_client, true, true},
                          {default_part, default_part, true, true}, {default_part, absent, true, false},
                          {absent, named_client, false, true},      {absent, default_part, false, true}};
  std::shared_lock lock(mu_);
  if (by_shape_.empty()) return std::nullopt;
  for (const Level& level : levels) {
    // Kafka's tags: no client-id, the user levels only; no user, the client-id levels only.
    if ((client_id.empty() && level.by_client_id) || (user.empty() && level.by_user)) continue;
    auto it = by_shape_.find(shape_key(level.user, level.client_id));
    if (it == by_shape_.end()) continue;
    auto value = it->second.find(key);
    if (value != it->second.end()) return ResolvedQuota{value->second, level.by_user, level.by_client_id};
  }
  return std::nullopt;
}

std::optional<double> ClientQuotaStore::resolve_ip(std::string_view ip) const {
  std::shared_lock lock(mu_);
  if (!ip_rates_.empty()) {
    if (auto canonical = canonical_ip(ip)) {
      auto it = ip_rates_.find(*canonical);
      if (it != ip_rates_.end()) return it->second;
    }
  }
  return default_ip_rate_;
}

bool ClientQuotaStore::has_key(std::string_view key) const {
  std::shared_lock lock(mu_);
  return key_counts_.find(key) != key_counts_.end();
}

}  // namespace skiff::api::quota
