// The payload of PushTelemetry (KIP-714): an OTLP MetricsData protobuf
// (opentelemetry-proto, vendored in proto/), compressed with the codec the
// client chose among GetTelemetrySubscriptions' accepted types. Decoded into
// flat data points: gauges and sums as they are, histograms (and exponential
// histograms and summaries) as their count and sum. Other fields (exemplars,
// buckets, quantiles) are dropped.
//
// Threads: stateless functions, any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace skiff::api::telemetry {

struct TelemetryPoint {
  enum class Kind : uint8_t { kGauge, kSum, kCount };  // kCount: a histogram's _count or _sum
  std::string name;  // the OTLP metric name, plus "_count" / "_sum" for a histogram's parts
  std::vector<std::pair<std::string, std::string>> attributes;  // the data point's, in order
  double value = 0;
  Kind kind = Kind::kGauge;
  bool monotonic = false;  // a monotonic sum, or a histogram's count/sum
  bool delta = false;      // AGGREGATION_TEMPORALITY_DELTA: add to the previous value
};

struct DecodedMetrics {
  std::vector<std::pair<std::string, std::string>> resource;  // the first resource's attributes
  std::vector<TelemetryPoint> points;
};

// Decodes a serialized MetricsData; nullopt if it is not one.
std::optional<DecodedMetrics> decode_metrics_data(std::span<const uint8_t> bytes);

// Kafka's CompressionType ids 0 (none) to 4 (zstd); nullopt for another id,
// corrupt input or an output over max_bytes.
std::optional<std::vector<uint8_t>> decompress_payload(int8_t compression_type, std::span<const uint8_t> bytes,
                                                       size_t max_bytes);

}  // namespace skiff::api::telemetry
