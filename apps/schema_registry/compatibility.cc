#include "apps/schema_registry/compatibility.h"

#include <algorithm>
#include <cctype>

namespace skiff::schemareg {
namespace {

constexpr std::pair<std::string_view, CompatibilityLevel> kLevels[] = {
    {"NONE", CompatibilityLevel::kNone},
    {"BACKWARD", CompatibilityLevel::kBackward},
    {"BACKWARD_TRANSITIVE", CompatibilityLevel::kBackwardTransitive},
    {"FORWARD", CompatibilityLevel::kForward},
    {"FORWARD_TRANSITIVE", CompatibilityLevel::kForwardTransitive},
    {"FULL", CompatibilityLevel::kFull},
    {"FULL_TRANSITIVE", CompatibilityLevel::kFullTransitive}};

constexpr size_t kMaxSchemaForMessage = size_t{10} * 1024;  // SchemaValidatorBuilder.MAX_SCHEMA_SIZE_FOR_LOGGING
constexpr std::string_view kDifferentType = "Incompatible because of different schema type";

enum class Strategy { kCanRead, kCanBeRead, kMutual };

void append_old_schema(std::vector<std::string>& out, const PreviousSchema& existing) {
  out.push_back("{oldSchemaVersion: " + std::to_string(existing.version) + "}");
  const auto text = existing.schema->canonical();
  if (text.size() <= kMaxSchemaForMessage) {
    out.push_back("{oldSchema: '" + text + "'}");
  } else {
    out.push_back("{oldSchema: <truncated> '" + text.substr(0, kMaxSchemaForMessage) + "...'}");
  }
}

// reader_is_new: the lines come from candidate.incompatibilities(existing)
// with the roles ("new", "old"); otherwise from
// existing.incompatibilities(candidate) with ("old", "new"), as Confluent's
// SchemaValidatorBuilder formats them.
std::vector<std::string> one_way(const schema::ParsedSchema& candidate, const PreviousSchema& existing,
                                 bool reader_is_new, bool append_schema) {
  std::vector<std::string> lines;
  if (reader_is_new) {
    for (const auto& l : candidate.incompatibilities(*existing.schema))
      lines.push_back(schema::fill_roles(l, "new", "old"));
  } else {
    for (const auto& l : existing.schema->incompatibilities(candidate))
      lines.push_back(schema::fill_roles(l, "old", "new"));
  }
  if (!lines.empty() && append_schema) append_old_schema(lines, existing);
  return lines;
}

std::vector<std::string> validate(Strategy strategy, const schema::ParsedSchema& candidate,
                                  const PreviousSchema& existing) {
  if (candidate.type() != existing.schema->type()) return {std::string(kDifferentType)};
  switch (strategy) {
    case Strategy::kCanRead:
      return one_way(candidate, existing, true, true);
    case Strategy::kCanBeRead:
      return one_way(candidate, existing, false, true);
    case Strategy::kMutual: {
      auto lines = one_way(candidate, existing, false, false);
      auto more = one_way(candidate, existing, true, true);
      lines.insert(lines.end(), more.begin(), more.end());
      return lines;
    }
  }
  return {};
}

}  // namespace

std::string_view level_name(CompatibilityLevel level) {
  for (const auto& [n, l] : kLevels) {
    if (l == level) return n;
  }
  return "BACKWARD";
}

std::optional<CompatibilityLevel> parse_level(std::string_view name) {
  std::string upper(name);
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
  for (const auto& [n, l] : kLevels) {
    if (n == upper) return l;
  }
  return std::nullopt;
}

std::vector<std::string> check_compatibility(CompatibilityLevel level, const schema::ParsedSchema& candidate,
                                             const std::vector<PreviousSchema>& previous) {
  if (level == CompatibilityLevel::kNone || previous.empty()) return {};
  Strategy strategy = Strategy::kCanRead;
  if (level == CompatibilityLevel::kForward || level == CompatibilityLevel::kForwardTransitive) {
    strategy = Strategy::kCanBeRead;
  } else if (level == CompatibilityLevel::kFull || level == CompatibilityLevel::kFullTransitive) {
    strategy = Strategy::kMutual;
  }
  const bool transitive = level == CompatibilityLevel::kBackwardTransitive ||
                          level == CompatibilityLevel::kForwardTransitive ||
                          level == CompatibilityLevel::kFullTransitive;
  if (!transitive) return validate(strategy, candidate, previous.back());
  for (auto it = previous.rbegin(); it != previous.rend(); ++it) {
    auto lines = validate(strategy, candidate, *it);
    if (!lines.empty()) return lines;
  }
  return {};
}

std::vector<std::string> registry_compatibility(CompatibilityLevel level, bool validate_fields,
                                                const schema::ParsedSchema& candidate,
                                                const std::vector<PreviousSchema>& previous) {
  auto lines = check_compatibility(level, candidate, previous);
  if (!lines.empty()) {
    lines.push_back(std::string("{validateFields: '") + (validate_fields ? "true" : "false") + "', compatibility: '" +
                    std::string(level_name(level)) + "'}");
  }
  return lines;
}

}  // namespace skiff::schemareg
