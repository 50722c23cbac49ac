#include "coordinator/group/consumer_regex.h"

#include <fmt/format.h>

namespace skiff::group {

std::optional<std::string> invalid_regex_message(std::string_view regex) {
  protocol::NamePattern p(regex);
  if (p.ok()) return std::nullopt;
  return fmt::format("SubscribedTopicRegex `{}` is not a valid regular expression: {}.", regex, p.java_description());
}

std::set<std::string> resolve_regex(const protocol::NamePattern& pattern, const std::vector<std::string>& names) {
  std::set<std::string> out;
  if (!pattern.ok()) return out;
  for (const auto& n : names)
    if (pattern.matches(n)) out.insert(n);
  return out;
}

}  // namespace skiff::group
