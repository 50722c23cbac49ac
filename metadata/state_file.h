// The frame of Skiff's small state files (skiff-acls, skiff-scram-credentials),
// around records written with common/file_fields.h:
//   magic (8 ASCII bytes) | version int16 | record count int32 | records...
//   | CRC-32C (uint32) of every byte before it
// all big-endian. begin/seal write it; open checks magic, CRC and version
// and returns a reader at the first record. Header-only; no thread rules.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "common/file_fields.h"
#include "log/crc32c.h"

namespace skiff::metadata {

inline std::string begin_state_file(std::string_view magic, int16_t version, uint32_t count) {
  std::string out(magic);
  put_be_field(out, static_cast<uint16_t>(version), 2);
  put_be_field(out, count, 4);
  return out;
}

inline void seal_state_file(std::string& out) {
  put_be_field(out, storage::crc32c(reinterpret_cast<const uint8_t*>(out.data()), out.size()), 4);
}

// Throws std::runtime_error saying what is wrong; `what` names the file's
// kind ("an ACL file"). `count` is the number of records that follow.
inline FieldReader open_state_file(std::string_view bytes, std::string_view magic, int16_t version,
                                   std::string_view what, uint32_t& count) {
  if (bytes.size() < magic.size() + 10 || bytes.substr(0, magic.size()) != magic)
    throw std::runtime_error(fmt::format("not {} (bad magic)", what));
  auto body = bytes.substr(0, bytes.size() - 4);
  const uint32_t crc = load_be32(reinterpret_cast<const uint8_t*>(bytes.data() + body.size()));
  if (crc != storage::crc32c(reinterpret_cast<const uint8_t*>(body.data()), body.size()))
    throw std::runtime_error("CRC mismatch");
  FieldReader in(body.substr(magic.size()));
  const auto found = static_cast<int16_t>(load_be16(in.take(2)));
  if (found != version) throw std::runtime_error(fmt::format("unknown version {}", found));
  count = in.uint32();
  return in;
}

}  // namespace skiff::metadata
