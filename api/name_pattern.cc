#include "api/name_pattern.h"

#include <re2/re2.h>

namespace skiff::api {

namespace {

re2::RE2::Options options() {
  re2::RE2::Options o;
  o.set_log_errors(false);  // the caller reports the error to the client
  o.set_max_mem(1 << 20);   // bounds the compiled program: 1 MiB per pattern
  o.set_encoding(re2::RE2::Options::EncodingUTF8);
  return o;
}

}  // namespace

NamePattern::NamePattern(std::string_view pattern)
    : re_(std::make_unique<re2::RE2>(re2::StringPiece(pattern.data(), pattern.size()), options())) {
  if (!re_->ok()) error_ = re_->error();
}

NamePattern::~NamePattern() = default;
NamePattern::NamePattern(NamePattern&&) noexcept = default;
NamePattern& NamePattern::operator=(NamePattern&&) noexcept = default;

bool NamePattern::ok() const { return re_ && re_->ok(); }

bool NamePattern::matches(std::string_view name) const {
  return ok() && re2::RE2::FullMatch(re2::StringPiece(name.data(), name.size()), *re_);
}

}  // namespace skiff::api
