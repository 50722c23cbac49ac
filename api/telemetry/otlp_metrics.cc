#include "api/telemetry/otlp_metrics.h"

#include <fmt/format.h>

#include <limits>

#include "log/compression.h"
#include "opentelemetry/proto/metrics/v1/metrics.pb.h"

namespace skiff::api::telemetry {
namespace {

namespace otlp = opentelemetry::proto;
using Attributes = std::vector<std::pair<std::string, std::string>>;

std::string any_value_text(const otlp::common::v1::AnyValue& v) {
  using V = otlp::common::v1::AnyValue;
  switch (v.value_case()) {
    case V::kStringValue:
      return v.string_value();
    case V::kBoolValue:
      return v.bool_value() ? "true" : "false";
    case V::kIntValue:
      return std::to_string(v.int_value());
    case V::kDoubleValue:
      return fmt::format("{}", v.double_value());
    default:
      return "";  // arrays, maps and bytes: not a label value
  }
}

Attributes attributes_of(const google::protobuf::RepeatedPtrField<otlp::common::v1::KeyValue>& kvs) {
  Attributes out;
  out.reserve(kvs.size());
  for (const auto& kv : kvs) out.emplace_back(kv.key(), any_value_text(kv.value()));
  return out;
}

double number_value(const otlp::metrics::v1::NumberDataPoint& p) {
  return p.value_case() == otlp::metrics::v1::NumberDataPoint::kAsInt ? static_cast<double>(p.as_int()) : p.as_double();
}

bool is_delta(otlp::metrics::v1::AggregationTemporality t) {
  return t == otlp::metrics::v1::AGGREGATION_TEMPORALITY_DELTA;
}

void add_numbers(const std::string& name,
                 const google::protobuf::RepeatedPtrField<otlp::metrics::v1::NumberDataPoint>& pts,
                 TelemetryPoint::Kind kind, bool monotonic, bool delta, std::vector<TelemetryPoint>& out) {
  for (const auto& p : pts)
    out.push_back({name, attributes_of(p.attributes()), number_value(p), kind, monotonic, delta});
}

// count and sum of histogram-like points.
template <class Points>
void add_counts(const std::string& name, const Points& pts, bool delta, std::vector<TelemetryPoint>& out) {
  for (const auto& p : pts) {
    auto attrs = attributes_of(p.attributes());
    out.push_back({name + "_count", attrs, static_cast<double>(p.count()), TelemetryPoint::Kind::kCount, true, delta});
    out.push_back({name + "_sum", std::move(attrs), p.sum(), TelemetryPoint::Kind::kCount, true, delta});
  }
}

void add_metric(const otlp::metrics::v1::Metric& m, std::vector<TelemetryPoint>& out) {
  using M = otlp::metrics::v1::Metric;
  switch (m.data_case()) {
    case M::kGauge:
      add_numbers(m.name(), m.gauge().data_points(), TelemetryPoint::Kind::kGauge, false, false, out);
      break;
    case M::kSum:
      add_numbers(m.name(), m.sum().data_points(), TelemetryPoint::Kind::kSum, m.sum().is_monotonic(),
                  is_delta(m.sum().aggregation_temporality()), out);
      break;
    case M::kHistogram:
      add_counts(m.name(), m.histogram().data_points(), is_delta(m.histogram().aggregation_temporality()), out);
      break;
    case M::kExponentialHistogram:
      add_counts(m.name(), m.exponential_histogram().data_points(),
                 is_delta(m.exponential_histogram().aggregation_temporality()), out);
      break;
    case M::kSummary:
      add_counts(m.name(), m.summary().data_points(), false, out);
      break;
    default:
      break;
  }
}

}  // namespace

std::optional<DecodedMetrics> decode_metrics_data(std::span<const uint8_t> bytes) {
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max())) return std::nullopt;
  otlp::metrics::v1::MetricsData data;
  if (!data.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) return std::nullopt;
  DecodedMetrics out;
  for (const auto& rm : data.resource_metrics()) {
    if (out.resource.empty()) out.resource = attributes_of(rm.resource().attributes());
    for (const auto& sm : rm.scope_metrics())
      for (const auto& m : sm.metrics()) add_metric(m, out.points);
  }
  return out;
}

std::optional<std::vector<uint8_t>> decompress_payload(int8_t compression_type, std::span<const uint8_t> bytes,
                                                       size_t max_bytes) {
  if (compression_type < 0 || compression_type > 4) return std::nullopt;
  return storage::decompress(static_cast<storage::Compression>(compression_type), bytes, max_bytes);
}

}  // namespace skiff::api::telemetry
