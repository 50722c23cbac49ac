// NamePattern: a regular expression a client sends to filter names —
// ListTransactions v2's TransactionalIdPattern today; KIP-848's subscribed
// topic regex uses the same syntax. Kafka compiles these with RE2/J and
// matches whole names (Matcher.matches()); RE2 has the same syntax and, unlike
// std::regex, runs in time linear in the input with bounded memory, so a
// hostile pattern cannot stall or crash a handler thread.
//
// Threads: a compiled pattern is immutable; match() may be called from any
// thread at once.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace re2 {
class RE2;
}

namespace skiff::protocol {

class NamePattern {
 public:
  // Compiles `pattern`; on a syntax error (or a pattern over the memory
  // bound) returns a pattern whose ok() is false and whose error() says why.
  explicit NamePattern(std::string_view pattern);
  ~NamePattern();
  NamePattern(NamePattern&&) noexcept;
  NamePattern& operator=(NamePattern&&) noexcept;

  bool ok() const;
  const std::string& error() const { return error_; }
  // The error as RE2/J's PatternSyntaxException.getDescription() words it
  // ("missing closing )"), which Kafka puts in its messages; empty when ok().
  const std::string& java_description() const { return java_description_; }
  // True when the whole of `name` matches (false when !ok()).
  bool matches(std::string_view name) const;

 private:
  std::unique_ptr<re2::RE2> re_;
  std::string error_;
  std::string java_description_;
};

}  // namespace skiff::protocol
