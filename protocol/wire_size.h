// Encoded sizes of the wire's variable-length values; the generated
// encoded_size() functions add these up without encoding anything.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/varint.h"
#include "protocol/records.h"
#include "protocol/types.h"

namespace skiff::protocol {

using skiff::uvarint_size;

// Length prefix of a string (wide=false), bytes or records (wide=true).
inline size_t length_prefix_size(size_t len, bool compact, bool wide) {
  return compact ? uvarint_size(len + 1) : (wide ? 4 : 2);
}
inline size_t string_size(const std::string& v, bool compact) {
  return length_prefix_size(v.size(), compact, false) + v.size();
}
inline size_t nullable_string_size(const std::optional<std::string>& v, bool compact) {
  return v ? string_size(*v, compact) : (compact ? 1 : 2);
}
inline size_t bytes_size(const std::vector<uint8_t>& v, bool compact) {
  return length_prefix_size(v.size(), compact, true) + v.size();
}
inline size_t nullable_bytes_size(const std::optional<std::vector<uint8_t>>& v, bool compact) {
  return v ? bytes_size(*v, compact) : (compact ? 1 : 4);
}
inline size_t records_size(const Records& v, bool compact) {
  if (v.is_null()) return compact ? 1 : 4;
  const size_t len = v.size();
  return length_prefix_size(len, compact, true) + len;
}
inline size_t array_length_size(size_t count, bool compact) { return compact ? uvarint_size(count + 1) : 4; }
inline size_t tagged_field_size(uint32_t tag, size_t body) { return uvarint_size(tag) + uvarint_size(body) + body; }
// The raw fields of a tagged section, without its count.
inline size_t raw_tagged_fields_size(const TaggedFields& fields) {
  size_t n = 0;
  for (const auto& f : fields) n += tagged_field_size(f.tag, f.data.size());
  return n;
}

}  // namespace skiff::protocol
