#include "config/ssl_principal_mapper.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace skiff::config {
namespace {

void skip_space(std::string_view text, size_t& pos) {
  while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) ++pos;
}

// Reads up to the next unescaped '/', which it consumes; "\/" becomes "/",
// other escapes stay for the regular expression. False without a '/'.
bool read_segment(std::string_view text, size_t& pos, std::string& out) {
  while (pos < text.size()) {
    char c = text[pos++];
    if (c == '/') return true;
    if (c == '\\' && pos < text.size()) {
      char next = text[pos++];
      if (next != '/') out += '\\';
      out += next;
      continue;
    }
    out += c;
  }
  return false;
}

std::string invalid_rule_text(std::string_view text, size_t start) {
  auto end = text.find(',', start);
  return std::string(text.substr(start, end == std::string_view::npos ? text.size() - start : end - start));
}

}  // namespace

SslPrincipalMapper::Rule SslPrincipalMapper::parse_rule(std::string_view text, size_t& pos) {
  const size_t start = pos;
  Rule rule;
  auto invalid = [&] { return std::invalid_argument(fmt::format("Invalid rule: {}", invalid_rule_text(text, start))); };
  if (text.substr(pos, 7) == "DEFAULT") {
    size_t after = pos + 7;
    skip_space(text, after);
    if (after < text.size() && text[after] != ',') throw invalid();
    pos = after;
    rule.is_default = true;
    return rule;
  }
  if (text.substr(pos, 5) != "RULE:") throw invalid();
  pos += 5;
  if (!read_segment(text, pos, rule.pattern_text) || !read_segment(text, pos, rule.replacement)) throw invalid();
  if (pos < text.size() && (text[pos] == 'L' || text[pos] == 'U')) {
    rule.to_lower = text[pos] == 'L';
    rule.to_upper = text[pos] == 'U';
    ++pos;
  }
  while (pos < text.size() && text[pos] != ',') ++pos;  // Kafka ignores what follows the flags
  try {
    rule.pattern = std::regex(rule.pattern_text, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw std::invalid_argument(fmt::format("Invalid rule: bad pattern '{}': {}", rule.pattern_text, e.what()));
  }
  return rule;
}

SslPrincipalMapper SslPrincipalMapper::parse(std::string_view rules) {
  SslPrincipalMapper m;
  size_t pos = 0;
  skip_space(rules, pos);
  while (pos < rules.size()) {
    m.rules_.push_back(parse_rule(rules, pos));
    skip_space(rules, pos);
    if (pos < rules.size()) {
      if (rules[pos] != ',')
        throw std::invalid_argument(fmt::format("Invalid rule: {}", invalid_rule_text(rules, pos)));
      ++pos;
      skip_space(rules, pos);
      if (pos == rules.size()) throw std::invalid_argument("Invalid rule: a rule list must not end with ','");
    }
  }
  if (m.rules_.empty()) {
    Rule all;
    all.is_default = true;
    m.rules_.push_back(std::move(all));
  }
  return m;
}

std::optional<std::string> SslPrincipalMapper::name_for(const std::string& subject_dn) const {
  for (const auto& r : rules_) {
    if (r.is_default) return subject_dn;
    if (!std::regex_match(subject_dn, r.pattern)) continue;
    std::string out = std::regex_replace(subject_dn, r.pattern, r.replacement);
    if (r.to_lower)
      std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    if (r.to_upper)
      std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::toupper(c); });
    return out;
  }
  return std::nullopt;
}

}  // namespace skiff::config
