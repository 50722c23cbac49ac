#include "api/telemetry/client_metrics_subscriptions.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <stdexcept>

#include "common/file_fields.h"

namespace skiff::api::telemetry {
namespace {

constexpr std::string_view kSelectors[] = {"client_instance_id",    "client_id",
                                           "client_software_name",  "client_software_version",
                                           "client_source_address", "client_source_port"};

std::string_view trim(std::string_view s) {
  const auto* ws = " \t\r\n\f\v";
  const auto b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

bool known_key(const std::string& key) { return key == kMetricsKey || key == kIntervalKey || key == kMatchKey; }

// Kafka's ConfigDef INT parse: the trimmed value as a 32-bit integer.
std::optional<int32_t> parse_int(std::string_view value) {
  value = trim(value);
  if (!value.empty() && value.front() == '+') value.remove_prefix(1);
  int32_t out = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), out);
  if (value.empty() || ec != std::errc() || end != value.data() + value.size()) return std::nullopt;
  return out;
}

// One "selector=regex" item (ClientMetricsConfigs.parseMatchingPatterns):
// nullopt when malformed.
std::optional<std::pair<std::string, std::shared_ptr<const protocol::NamePattern>>> parse_match(
    const std::string& item) {
  // String.split("=") drops trailing empty strings, so "a=b=" is two parts.
  std::vector<std::string_view> parts;
  std::string_view rest = item;
  while (true) {
    auto eq = rest.find('=');
    parts.push_back(rest.substr(0, eq));
    if (eq == std::string_view::npos) break;
    rest.remove_prefix(eq + 1);
  }
  while (!parts.empty() && parts.back().empty()) parts.pop_back();
  if (parts.size() != 2) return std::nullopt;
  const std::string selector(trim(parts[0]));
  if (std::find(std::begin(kSelectors), std::end(kSelectors), selector) == std::end(kSelectors)) return std::nullopt;
  auto pattern = std::make_shared<const protocol::NamePattern>(trim(parts[1]));
  if (!pattern->ok()) return std::nullopt;
  return std::pair{selector, std::move(pattern)};
}

}  // namespace

const std::optional<std::string>* ClientAttributes::find(std::string_view selector) const {
  static const std::optional<std::string> kNone;
  if (selector == "client_instance_id") return &client_instance_id;
  if (selector == "client_id") return &client_id;
  if (selector == "client_software_name") return &software_name;
  if (selector == "client_software_version") return &software_version;
  if (selector == "client_source_address") return &source_address;
  if (selector == "client_source_port") return &source_port;
  return &kNone;
}

bool Subscription::matches(const ClientAttributes& client) const {
  return std::all_of(match.begin(), match.end(), [&](const auto& m) {
    const auto* value = client.find(m.first);
    return value->has_value() && m.second->matches(**value);
  });
}

std::vector<std::string> parse_list(std::string_view value) {
  std::vector<std::string> out;
  if (trim(value).empty()) return out;
  while (true) {
    auto comma = value.find(',');
    out.emplace_back(trim(value.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return out;
}

std::optional<Refusal> validate(const std::string& name, const ConfigMap& configs) {
  if (name.empty()) return Refusal{ErrorCode::kInvalidRequest, "Subscription name can't be empty"};
  for (const auto& [key, value] : configs)
    if (!known_key(key)) return Refusal{ErrorCode::kInvalidRequest, "Unknown client metrics configuration: " + key};
  if (auto it = configs.find(std::string(kIntervalKey)); it != configs.end()) {
    auto interval = parse_int(it->second);
    if (!interval)
      return Refusal{ErrorCode::kInvalidConfig, fmt::format("Invalid value {} for configuration {}: Not a number of "
                                                            "type INT",
                                                            it->second, kIntervalKey)};
    if (*interval < kMinIntervalMs || *interval > kMaxIntervalMs)
      return Refusal{ErrorCode::kInvalidRequest,
                     fmt::format("Invalid value {} for {}, interval must be between 100 and 3600000 (1 hour)",
                                 *interval, kIntervalKey)};
  }
  if (auto it = configs.find(std::string(kMatchKey)); it != configs.end())
    for (const auto& item : parse_list(it->second))
      if (!parse_match(item)) return Refusal{ErrorCode::kInvalidConfig, "Illegal client matching pattern: " + item};
  return std::nullopt;
}

Subscription parse_subscription(const std::string& name, const ConfigMap& configs) {
  Subscription s;
  s.name = name;
  if (auto it = configs.find(std::string(kMetricsKey)); it != configs.end()) {
    s.metrics = parse_list(it->second);
    std::sort(s.metrics.begin(), s.metrics.end());
    s.metrics.erase(std::unique(s.metrics.begin(), s.metrics.end()), s.metrics.end());
  }
  if (auto it = configs.find(std::string(kIntervalKey)); it != configs.end())
    s.interval_ms = parse_int(it->second).value_or(kDefaultIntervalMs);
  if (auto it = configs.find(std::string(kMatchKey)); it != configs.end())
    for (const auto& item : parse_list(it->second)) {
      auto m = parse_match(item);
      if (!m) continue;
      // A selector named twice: the last wins (Kafka's HashMap.put).
      std::erase_if(s.match, [&](const auto& e) { return e.first == m->first; });
      s.match.push_back(std::move(*m));
    }
  return s;
}

SubscriptionStore::SubscriptionStore(metadata::Namespace* ns) : ns_(ns) {
  std::map<std::string, ConfigMap> loaded;
  if (ns_) loaded = ns_->load(decode);
  std::lock_guard lock(mu_);
  publish(std::move(loaded));
}

std::vector<std::string> SubscriptionStore::encode(const std::map<std::string, ConfigMap>& all) {
  return named_string_map_records(all);
}

std::map<std::string, ConfigMap> SubscriptionStore::decode(const std::vector<std::string>& records) {
  std::map<std::string, ConfigMap> out;
  for (const auto& record : records) {
    FieldReader in(record);
    std::string name = in.string();
    ConfigMap configs = in.string_map();
    if (!in.done()) throw std::runtime_error(fmt::format("bytes after subscription '{}'", name));
    if (auto refused = validate(name, configs))
      throw std::runtime_error(fmt::format("subscription '{}': {}", name, refused->message));
    if (configs.empty() || !out.emplace(std::move(name), std::move(configs)).second)
      throw std::runtime_error("an empty or repeated subscription");
  }
  return out;
}

void SubscriptionStore::publish(std::map<std::string, ConfigMap> next) {
  auto parsed = std::make_shared<std::vector<Subscription>>();
  for (const auto& [name, configs] : next) parsed->push_back(parse_subscription(name, configs));
  configs_ = std::move(next);
  parsed_ = std::move(parsed);
  ++version_;
}

std::vector<std::string> SubscriptionStore::names() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  for (const auto& [name, configs] : configs_) out.push_back(name);
  return out;
}

std::optional<ConfigMap> SubscriptionStore::configs(const std::string& name) const {
  std::lock_guard lock(mu_);
  auto it = configs_.find(name);
  if (it == configs_.end()) return std::nullopt;
  return it->second;
}

int SubscriptionStore::put(const std::string& name, const ConfigMap& configs) {
  std::lock_guard writer(write_mu_);
  std::map<std::string, ConfigMap> next;
  {
    std::lock_guard lock(mu_);
    next = configs_;
  }
  if (configs.empty()) {
    if (next.erase(name) == 0) return 0;  // deleting what does not exist: nothing to do
  } else {
    next[name] = configs;
  }
  if (ns_)
    if (auto r = ns_->write(encode(next)); !r) return metadata::error_number(r.error());
  std::lock_guard lock(mu_);
  publish(std::move(next));
  return 0;
}

SubscriptionStore::Snapshot SubscriptionStore::snapshot() const {
  std::lock_guard lock(mu_);
  return parsed_;
}

uint64_t SubscriptionStore::version() const {
  std::lock_guard lock(mu_);
  return version_;
}

}  // namespace skiff::api::telemetry
