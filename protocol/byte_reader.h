// ByteReader: bounds-checked cursor over one request or response frame.
//
// Every read checks the remaining length first and throws DecodeError on
// malformed input: it never reads out of bounds and never allocates for a
// declared length that the remaining bytes could not possibly hold.
// `records` fields are returned as views into the input (zero copy), so the
// input must outlive whatever was decoded from it.
// Not thread-safe; one reader per decoding thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/byte_order.h"
#include "common/varint.h"
#include "protocol/errors.h"
#include "protocol/records.h"
#include "protocol/types.h"

namespace skiff::protocol {

class ByteReader {
 public:
  explicit ByteReader(std::span<const uint8_t> data)
      : data_(data), own_budget_(kBudgetFactor * data.size() + kBudgetSlack), budget_(&own_budget_) {}
  // Copies share nothing; a reader made by read_tagged_field_body() shares
  // its parent's budget.
  ByteReader(const ByteReader& o) : data_(o.data_), pos_(o.pos_), own_budget_(*o.budget_), budget_(&own_budget_) {}
  ByteReader& operator=(const ByteReader& o) {
    data_ = o.data_;
    pos_ = o.pos_;
    own_budget_ = *o.budget_;
    budget_ = &own_budget_;
    return *this;
  }

  // Decoding can turn a few wire bytes into a large in-memory element (an
  // array of structs with empty strings): every array charges
  // count * sizeof(element) against a budget proportional to the input, so a
  // hostile frame cannot make the broker allocate gigabytes.
  static constexpr size_t kBudgetFactor = 16;
  static constexpr size_t kBudgetSlack = 1 << 20;
  void charge(size_t bytes) {
    if (bytes > *budget_) fail("request expands beyond the decode memory budget");
    *budget_ -= bytes;
  }

  size_t position() const { return pos_; }
  size_t remaining() const { return data_.size() - pos_; }
  bool empty() const { return pos_ == data_.size(); }

  int8_t read_int8() { return static_cast<int8_t>(*take(1)); }
  int16_t read_int16() { return static_cast<int16_t>(read_be<uint16_t>()); }
  int32_t read_int32() { return static_cast<int32_t>(read_be<uint32_t>()); }
  int64_t read_int64() { return static_cast<int64_t>(read_be<uint64_t>()); }
  uint16_t read_uint16() { return read_be<uint16_t>(); }
  double read_float64();
  bool read_bool() { return *take(1) != 0; }
  Uuid read_uuid();

  uint32_t read_uvarint();                                           // at most 5 bytes, no bits beyond 32
  uint64_t read_uvarlong();                                          // at most 10 bytes, no bits beyond 64
  int32_t read_varint() { return zigzag_decode32(read_uvarint()); }  // zig-zag
  int64_t read_varlong() { return zigzag_decode(read_uvarlong()); }

  // `compact` selects the flexible-version encodings (unsigned varint N+1).
  std::string read_string(bool compact);
  std::optional<std::string> read_nullable_string(bool compact);
  std::vector<uint8_t> read_bytes(bool compact);
  std::optional<std::vector<uint8_t>> read_nullable_bytes(bool compact);
  // A view into the input; throws on null unless `nullable`.
  Records read_records(bool compact, bool nullable);

  // Array element count, checked so that count * min_element_size fits in
  // what remains: a huge declared count fails before any allocation.
  // `element_size` (sizeof the decoded element) is charged to the budget.
  size_t read_array_length(bool compact, size_t min_element_size, size_t element_size = 0);
  // As above; -1 for a null array.
  int64_t read_nullable_array_length(bool compact, size_t min_element_size, size_t element_size = 0);

  // Skips a whole tagged-field section, keeping every field verbatim.
  void read_unknown_tagged_fields(TaggedFields& out);
  // One tagged field's size prefix; returns a reader over exactly its bytes
  // and advances past them, so a known field cannot overrun its slot.
  ByteReader read_tagged_field_body();
  // The rest of the input as a copied raw tagged field.
  RawTaggedField take_raw_tagged_field(uint32_t tag);

  std::span<const uint8_t> read_raw(size_t n) { return {take(n), n}; }

  [[noreturn]] static void fail(const char* what);

 private:
  const uint8_t* take(size_t n) {
    if (n > remaining()) fail("truncated input");
    const uint8_t* p = data_.data() + pos_;
    pos_ += n;
    return p;
  }
  template <class T>
  T read_be() {
    T v;
    std::memcpy(&v, take(sizeof(T)), sizeof(T));
    return from_big_endian(v);
  }
  // An unsigned varint of at most max_bytes; `overflow` is the error beyond.
  uint64_t read_unsigned(int max_bytes, const char* overflow);
  // Length of a string/bytes value, -1 for null, checked against remaining().
  int64_t read_length(bool compact, bool wide);

  ByteReader(std::span<const uint8_t> data, size_t* shared_budget)
      : data_(data), own_budget_(0), budget_(shared_budget) {}

  std::span<const uint8_t> data_;
  size_t pos_ = 0;
  size_t own_budget_;
  size_t* budget_;  // &own_budget_, or the parent's for a tagged-field reader
};

}  // namespace skiff::protocol
