#include "protocol/byte_reader.h"

#include <bit>
#include <limits>

namespace skiff::protocol {

void ByteReader::fail(const char* what) { throw DecodeError(what); }

double ByteReader::read_float64() { return std::bit_cast<double>(read_be<uint64_t>()); }

Uuid ByteReader::read_uuid() {
  Uuid id;
  std::memcpy(id.bytes.data(), take(16), 16);
  return id;
}

uint64_t ByteReader::read_unsigned(int max_bytes, const char* overflow) {
  const uint8_t* p = data_.data() + pos_;
  uint64_t value = 0;
  switch (decode_uvarint(p, data_.data() + data_.size(), value, max_bytes)) {
    case VarintStatus::kOk:
      break;
    case VarintStatus::kTruncated:
      fail("truncated input");
    case VarintStatus::kOverflow:
      fail(overflow);
  }
  pos_ = static_cast<size_t>(p - data_.data());
  return value;
}

uint32_t ByteReader::read_uvarint() {
  return static_cast<uint32_t>(read_unsigned(kMaxVarint32Bytes, "varint longer than 5 bytes or over 32 bits"));
}

uint64_t ByteReader::read_uvarlong() {
  return read_unsigned(kMaxVarint64Bytes, "varlong longer than 10 bytes or over 64 bits");
}

int64_t ByteReader::read_length(bool compact, bool wide) {
  int64_t len;
  if (compact) {
    len = static_cast<int64_t>(read_uvarint()) - 1;
  } else if (wide) {
    len = read_int32();
  } else {
    len = read_int16();
  }
  if (len < -1) fail("negative length");
  if (len > static_cast<int64_t>(remaining())) fail("declared length exceeds input");
  return len;
}

std::string ByteReader::read_string(bool compact) {
  const int64_t len = read_length(compact, false);
  if (len < 0) fail("null in a non-nullable string");
  const char* p = reinterpret_cast<const char*>(take(static_cast<size_t>(len)));
  return std::string(p, static_cast<size_t>(len));
}

std::optional<std::string> ByteReader::read_nullable_string(bool compact) {
  const int64_t len = read_length(compact, false);
  if (len < 0) return std::nullopt;
  const char* p = reinterpret_cast<const char*>(take(static_cast<size_t>(len)));
  return std::string(p, static_cast<size_t>(len));
}

std::vector<uint8_t> ByteReader::read_bytes(bool compact) {
  const int64_t len = read_length(compact, true);
  if (len < 0) fail("null in non-nullable bytes");
  const uint8_t* p = take(static_cast<size_t>(len));
  return std::vector<uint8_t>(p, p + len);
}

std::optional<std::vector<uint8_t>> ByteReader::read_nullable_bytes(bool compact) {
  const int64_t len = read_length(compact, true);
  if (len < 0) return std::nullopt;
  const uint8_t* p = take(static_cast<size_t>(len));
  return std::vector<uint8_t>(p, p + len);
}

Records ByteReader::read_records(bool compact, bool nullable) {
  const int64_t len = read_length(compact, true);
  if (len < 0) {
    if (!nullable) fail("null in non-nullable records");
    return Records();
  }
  return Records::bytes(read_raw(static_cast<size_t>(len)));
}

int64_t ByteReader::read_nullable_array_length(bool compact, size_t min_element_size, size_t element_size) {
  const int64_t count = compact ? static_cast<int64_t>(read_uvarint()) - 1 : read_int32();
  if (count < -1) fail("negative array length");
  if (count > 0 && static_cast<uint64_t>(count) > remaining() / min_element_size) {
    fail("declared array length exceeds input");
  }
  if (count > 0) charge(static_cast<size_t>(count) * element_size);
  return count;
}

size_t ByteReader::read_array_length(bool compact, size_t min_element_size, size_t element_size) {
  const int64_t count = read_nullable_array_length(compact, min_element_size, element_size);
  if (count < 0) fail("null in a non-nullable array");
  return static_cast<size_t>(count);
}

ByteReader ByteReader::read_tagged_field_body() {
  const uint32_t size = read_uvarint();
  return ByteReader(read_raw(size), budget_);
}

RawTaggedField ByteReader::take_raw_tagged_field(uint32_t tag) {
  const auto rest = read_raw(remaining());
  return RawTaggedField{tag, std::vector<uint8_t>(rest.begin(), rest.end())};
}

void ByteReader::read_unknown_tagged_fields(TaggedFields& out) {
  const uint32_t count = read_uvarint();
  // Each field takes at least two bytes (tag and size): reject early.
  if (count > remaining() / 2) fail("tagged field count exceeds input");
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t tag = read_uvarint();
    ByteReader body = read_tagged_field_body();
    out.push_back(body.take_raw_tagged_field(tag));
  }
}

}  // namespace skiff::protocol
