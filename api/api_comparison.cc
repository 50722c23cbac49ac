#include "api/api_comparison.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "protocol/api_table.h"

namespace skiff::api {
namespace {

constexpr ReferenceApi kKafkaApis[] = {
#include "api/reference/kafka_api_versions.inc"
};

// What Kafka 4.4 serves only when configured, so its recorded answer (a
// default broker) lacks them: KIP-714's telemetry APIs, advertised once a
// ClientTelemetryReceiver (a metric reporter) is configured
// (ApiVersionManager's clientTelemetryEnabled). Skiff's receiver is /metrics.
constexpr ReferenceApi kKafkaConfiguredApis[] = {
    {71, "GetTelemetrySubscriptions", 0, 0},
    {72, "PushTelemetry", 0, 0},
};

std::string range_text(int16_t lo, int16_t hi) { return lo == hi ? std::to_string(lo) : fmt::format("{}–{}", lo, hi); }

std::string kafka_text() { return fmt::format("Kafka {}", kReferenceKafkaVersion); }

}  // namespace

std::span<const ReferenceApi> kafka_reference_apis() { return kKafkaApis; }

std::vector<ApiSideBySide> side_by_side(std::span<const ApiVersionRange> ours) {
  std::map<int16_t, ApiSideBySide> rows;
  for (const auto& k : kKafkaApis) rows[k.api_key] = {k.api_key, std::string(k.name), std::nullopt, k};
  for (const auto& r : ours) {
    for (const auto& k : kKafkaConfiguredApis)
      if (k.api_key == r.api_key) rows[k.api_key] = {k.api_key, std::string(k.name), std::nullopt, k};
    auto& row = rows[r.api_key];
    row.api_key = r.api_key;
    row.ours = r;
    if (const auto* info = protocol::find_api(r.api_key)) row.name = std::string(info->name);
  }
  std::vector<ApiSideBySide> out;
  out.reserve(rows.size());
  for (auto& [key, row] : rows) out.push_back(std::move(row));
  return out;
}

std::vector<std::string> gap_report(std::span<const ApiVersionRange> ours) {
  std::vector<std::string> out;
  for (const auto& row : side_by_side(ours)) {
    if (!row.kafka) continue;  // ours only: an advertising error, not a gap
    const auto& k = *row.kafka;
    const auto theirs = range_text(k.min_version, k.max_version);
    if (!row.ours) {
      out.push_back(fmt::format("{} (key {}): missing ({} serves {})", row.name, row.api_key, kafka_text(), theirs));
    } else if (row.ours->max_version < k.max_version) {
      out.push_back(fmt::format("{} (key {}): older, {} ({} serves {})", row.name, row.api_key,
                                range_text(row.ours->min_version, row.ours->max_version), kafka_text(), theirs));
    }
  }
  return out;
}

std::vector<std::string> advertising_errors(std::span<const ApiVersionRange> ours) {
  std::vector<std::string> out;
  for (const auto& row : side_by_side(ours)) {
    if (!row.ours) continue;
    const auto& r = *row.ours;
    const auto mine = range_text(r.min_version, r.max_version);
    if (!row.kafka) {
      out.push_back(
          fmt::format("key {}: advertised {}, but {} does not serve this API", r.api_key, mine, kafka_text()));
    } else if (r.min_version < row.kafka->min_version || r.max_version > row.kafka->max_version) {
      out.push_back(fmt::format("{} (key {}): advertised {}, outside {}'s {}", row.name, r.api_key, mine, kafka_text(),
                                range_text(row.kafka->min_version, row.kafka->max_version)));
    }
    const auto* codec = protocol::find_api(r.api_key);
    if (!codec) {
      out.push_back(fmt::format("key {}: advertised {}, but the codec has no schema for it", r.api_key, mine));
    } else if (r.min_version < codec->min_version || r.max_version > codec->max_version) {
      out.push_back(fmt::format("{} (key {}): advertised {}, outside the codec's {}", row.name, r.api_key, mine,
                                range_text(codec->min_version, codec->max_version)));
    }
  }
  return out;
}

std::string served_api_table(std::span<const ApiVersionRange> ours) {
  std::string out = fmt::format("| key | API | Skiff | {} |\n|---:|---|---|---|\n", kafka_text());
  for (const auto& row : side_by_side(ours)) {
    if (!row.ours) continue;
    out += fmt::format("| {} | {} | {} | {} |\n", row.api_key, row.name,
                       range_text(row.ours->min_version, row.ours->max_version),
                       row.kafka ? range_text(row.kafka->min_version, row.kafka->max_version) : "—");
  }
  return out;
}

}  // namespace skiff::api
