// The served APIs side by side with Apache Kafka's, from a recorded Kafka
// ApiVersions answer (api/reference/kafka_api_versions.inc, written by
// tools/record_kafka_apiversions.sh). Used by `skiff --list-apis` (docs/served-apis.md's
// table of served APIs) and by the ApiVersions gap test. Pure functions over
// constant data: thread-safe.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "api/api_handler.h"

namespace skiff::api {

inline constexpr std::string_view kReferenceKafkaVersion = "4.4.0";

struct ReferenceApi {
  int16_t api_key;
  std::string_view name;
  int16_t min_version;
  int16_t max_version;
};

// Kafka's answer, sorted by key.
std::span<const ReferenceApi> kafka_reference_apis();

// One API served by us, by Kafka, or both.
struct ApiSideBySide {
  int16_t api_key;
  std::string name;
  std::optional<ApiVersionRange> ours;
  std::optional<ReferenceApi> kafka;
};

// Every key of `ours` and of Kafka's, sorted by key. An API Kafka serves only
// when configured (the telemetry APIs, with a telemetry receiver) is
// compared with Kafka's range when we serve it.
std::vector<ApiSideBySide> side_by_side(std::span<const ApiVersionRange> ours);

// The gap, one readable line per difference: an API Kafka serves and we do
// not, or a range of ours older than Kafka's. Empty when we match Kafka.
std::vector<std::string> gap_report(std::span<const ApiVersionRange> ours);

// What must never be advertised, one line each: a version Kafka does not have
// (or an API it does not serve), or one outside the codec's schema range.
std::vector<std::string> advertising_errors(std::span<const ApiVersionRange> ours);

// The served APIs as a Markdown table: key, name, our versions, Kafka's.
std::string served_api_table(std::span<const ApiVersionRange> ours);

}  // namespace skiff::api
