#include "protocol/name_pattern.h"

#include <re2/re2.h>

namespace skiff::protocol {

namespace {

re2::RE2::Options options() {
  re2::RE2::Options o;
  o.set_log_errors(false);  // the caller reports the error to the client
  o.set_max_mem(1 << 20);   // bounds the compiled program: 1 MiB per pattern
  o.set_encoding(re2::RE2::Options::EncodingUTF8);
  return o;
}

// RE2/J (a port of RE2 via Go's regexp/syntax) names its errors as Go does;
// C++ RE2 has the same error kinds with shorter words.
std::string re2j_description(re2::RE2::ErrorCode code) {
  switch (code) {
    case re2::RE2::ErrorBadEscape:
      return "invalid escape sequence";
    case re2::RE2::ErrorBadCharClass:
      return "invalid character class";
    case re2::RE2::ErrorBadCharRange:
      return "invalid character class range";
    case re2::RE2::ErrorMissingBracket:
      return "missing closing ]";
    case re2::RE2::ErrorMissingParen:
      return "missing closing )";
    case re2::RE2::ErrorUnexpectedParen:
      return "unexpected )";
    case re2::RE2::ErrorTrailingBackslash:
      return "trailing backslash at end of expression";
    case re2::RE2::ErrorRepeatArgument:
      return "missing argument to repetition operator";
    case re2::RE2::ErrorRepeatSize:
      return "invalid repeat count";
    case re2::RE2::ErrorRepeatOp:
      return "invalid nested repetition operator";
    case re2::RE2::ErrorBadPerlOp:
      return "invalid or unsupported Perl syntax";
    case re2::RE2::ErrorBadUTF8:
      return "invalid UTF-8";
    case re2::RE2::ErrorBadNamedCapture:
      return "invalid named capture";
    case re2::RE2::ErrorPatternTooLarge:
      return "expression too large";
    default:
      return "regexp/syntax: internal error";
  }
}

}  // namespace

NamePattern::NamePattern(std::string_view pattern)
    : re_(std::make_unique<re2::RE2>(re2::StringPiece(pattern.data(), pattern.size()), options())) {
  if (!re_->ok()) {
    error_ = re_->error();
    java_description_ = re2j_description(re_->error_code());
  }
}

NamePattern::~NamePattern() = default;
NamePattern::NamePattern(NamePattern&&) noexcept = default;
NamePattern& NamePattern::operator=(NamePattern&&) noexcept = default;

bool NamePattern::ok() const { return re_ && re_->ok(); }

bool NamePattern::matches(std::string_view name) const {
  return ok() && re2::RE2::FullMatch(re2::StringPiece(name.data(), name.size()), *re_);
}

}  // namespace skiff::protocol
