// SslPrincipalMapper: Kafka's ssl.principal.mapping.rules, which turn a
// client certificate's subject (RFC 2253, as Java's X500Principal prints it,
// e.g. "CN=client,OU=test,O=org,C=US") into a principal name.
//
// Syntax (Kafka's SslPrincipalMapper): comma-separated rules, tried in order,
// the first that matches wins:
//   DEFAULT                          the whole subject, unchanged
//   RULE:pattern/replacement/[L|U]   when `pattern` (a regular expression)
//                                    matches the whole subject, the subject
//                                    with `pattern` replaced ($1 back
//                                    references), then lower/upper-cased
// A '\' escapes the next character ('\/' is a slash in a pattern). No rule
// matching is an error (Kafka fails the authentication).
//
// Immutable after parse: any thread.
#pragma once

#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace skiff::config {

class SslPrincipalMapper {
 public:
  // Throws std::invalid_argument naming the rule that does not parse.
  static SslPrincipalMapper parse(std::string_view rules);

  // The principal name for `subject_dn`, nullopt when no rule applies.
  std::optional<std::string> name_for(const std::string& subject_dn) const;

 private:
  struct Rule {
    bool is_default = false;
    std::string pattern_text;
    std::regex pattern;
    std::string replacement;
    bool to_lower = false;
    bool to_upper = false;
  };
  static Rule parse_rule(std::string_view text, size_t& pos);
  std::vector<Rule> rules_;
};

}  // namespace skiff::config
