#include "apps/rest_proxy/rest_media.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <vector>

namespace skiff::restproxy {
namespace {

std::string lower_trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

struct Range {
  std::string type;  // "application/json", "application/*", "*/*"
  double q = 1;
};

// "a/b;q=0.5, c/d" -> its ranges.
std::vector<Range> accept_ranges(std::string_view accept) {
  std::vector<Range> out;
  while (!accept.empty()) {
    const auto comma = accept.find(',');
    std::string_view item = accept.substr(0, comma);
    accept = comma == std::string_view::npos ? std::string_view{} : accept.substr(comma + 1);
    Range r;
    const auto semi = item.find(';');
    r.type = lower_trimmed(item.substr(0, semi));
    for (auto params = semi == std::string_view::npos ? std::string_view{} : item.substr(semi + 1); !params.empty();) {
      const auto next = params.find(';');
      const auto p = lower_trimmed(params.substr(0, next));
      params = next == std::string_view::npos ? std::string_view{} : params.substr(next + 1);
      if (p.starts_with("q=")) r.q = std::strtod(p.c_str() + 2, nullptr);
    }
    if (!r.type.empty()) out.push_back(std::move(r));
  }
  return out;
}

bool matches(const std::string& range, std::string_view type) {
  if (range == "*/*" || range == type) return true;
  return range.ends_with("/*") && type.starts_with(std::string_view(range).substr(0, range.size() - 1));
}

// The quality `accept` gives `type` (its most specific matching range's).
double quality(const std::vector<Range>& ranges, std::string_view type) {
  double q = -1;
  size_t best = 0;
  for (const auto& r : ranges)
    if (matches(r.type, type) && r.type.size() >= best) {
      best = r.type.size();
      q = r.q;
    }
  return q;
}

}  // namespace

std::optional<MediaType> parse_media_type(std::string_view content_type) {
  MediaType m;
  m.name = lower_trimmed(content_type.substr(0, content_type.find(';')));
  static const struct {
    const char* name;
    EmbeddedFormat format;
    bool v2;
  } kTypes[] = {{"application/vnd.kafka.v2+json", EmbeddedFormat::kNone, true},
                {"application/vnd.kafka+json", EmbeddedFormat::kNone, true},
                {"application/vnd.kafka.binary.v2+json", EmbeddedFormat::kBinary, true},
                {"application/vnd.kafka.json.v2+json", EmbeddedFormat::kJson, true},
                {"application/vnd.kafka.avro.v2+json", EmbeddedFormat::kAvro, true},
                {"application/vnd.kafka.jsonschema.v2+json", EmbeddedFormat::kJsonSchema, true},
                {"application/vnd.kafka.protobuf.v2+json", EmbeddedFormat::kProtobuf, true},
                {"application/json", EmbeddedFormat::kNone, false},
                {"application/octet-stream", EmbeddedFormat::kNone, false}};
  for (const auto& t : kTypes)
    if (m.name == t.name) {
      m.format = t.format;
      m.v2 = t.v2;
      return m;
    }
  return std::nullopt;
}

std::optional<std::string> negotiate_v2(std::string_view accept) {
  if (lower_trimmed(accept).empty()) return std::string(kV2Json);
  const auto ranges = accept_ranges(accept);
  double v2 = std::max(quality(ranges, kV2Json), quality(ranges, "application/vnd.kafka+json"));
  // GET .../records is asked with its format's type (Confluent's examples:
  // Accept: application/vnd.kafka.binary.v2+json); the route answers in it.
  for (const char* embedded : {"application/vnd.kafka.binary.v2+json", "application/vnd.kafka.json.v2+json",
                               "application/vnd.kafka.avro.v2+json", "application/vnd.kafka.jsonschema.v2+json",
                               "application/vnd.kafka.protobuf.v2+json"})
    v2 = std::max(v2, quality(ranges, embedded));
  const double json = quality(ranges, kJson);
  if (v2 <= 0 && json <= 0) return std::nullopt;
  return std::string(v2 >= json ? kV2Json : kJson);
}

bool accepts_json(std::string_view accept) {
  if (lower_trimmed(accept).empty()) return true;
  return quality(accept_ranges(accept), kJson) > 0;
}

const char* format_name(EmbeddedFormat f) {
  switch (f) {
    case EmbeddedFormat::kBinary:
      return "binary";
    case EmbeddedFormat::kJson:
      return "json";
    case EmbeddedFormat::kAvro:
      return "avro";
    case EmbeddedFormat::kJsonSchema:
      return "jsonschema";
    case EmbeddedFormat::kProtobuf:
      return "protobuf";
    case EmbeddedFormat::kNone:
      break;
  }
  return "none";
}

}  // namespace skiff::restproxy
