// Everything a generated message's header and source need; kept small so
// that the ~80 generated translation units stay cheap to compile.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/byte_reader.h"
#include "protocol/byte_writer.h"
#include "protocol/errors.h"
#include "protocol/records.h"
#include "protocol/types.h"
#include "protocol/wire_size.h"

namespace skiff::protocol::detail {

// Kafka's rule: a non-ignorable field holding a non-default value cannot be
// written in a version that lacks it.
[[noreturn]] void throw_unsupported_field(std::string_view message, std::string_view field, int16_t version);
[[noreturn]] void throw_unsupported_version(std::string_view message, int16_t version);
[[noreturn]] void throw_null_field(std::string_view message, std::string_view field, int16_t version);

// The value of an optional member in a version where the field is not
// nullable; null there is an encoding error.
template <class T>
const T& require_value(const std::optional<T>& v, std::string_view message, std::string_view field, int16_t version) {
  if (!v) throw_null_field(message, field, version);
  return *v;
}

// sizeof one decoded element of an array member (plain or nullable), charged
// to the reader's decode budget.
template <class V>
constexpr size_t element_size(const V&) {
  return sizeof(typename V::value_type);
}
template <class V>
constexpr size_t element_size(const std::optional<V>&) {
  return sizeof(typename V::value_type);
}

}  // namespace skiff::protocol::detail
