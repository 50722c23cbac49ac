#include "protocol/message_support.h"

#include <fmt/format.h>

namespace skiff::protocol::detail {

void throw_unsupported_field(std::string_view message, std::string_view field, int16_t version) {
  throw UnsupportedVersionError(
      fmt::format("{}: field {} has a non-default value but is absent in version {}", message, field, version));
}

void throw_unsupported_version(std::string_view message, int16_t version) {
  throw UnsupportedVersionError(fmt::format("{}: unsupported version {}", message, version));
}

void throw_null_field(std::string_view message, std::string_view field, int16_t version) {
  throw EncodeError(fmt::format("{}: field {} is null but not nullable in version {}", message, field, version));
}

}  // namespace skiff::protocol::detail
