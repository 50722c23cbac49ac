// Coordinator records (__consumer_offsets, __transaction_state): Kafka's
// CoordinatorRecordSerde layout, shared by the group and transaction
// coordinators' logs. A key is `i16 record type` then the key struct at
// version 0; a value is `i16 version` then the value struct at that
// version (all big-endian, the generated codec's encoding).
//
// Threads: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/byte_reader.h"
#include "protocol/byte_writer.h"
#include "protocol/errors.h"

namespace skiff::protocol {

// `prefix` (a key's record type or a value's version), then `m` at `version`.
template <typename M>
std::vector<uint8_t> encode_prefixed(int16_t prefix, const M& m, int16_t version) {
  ByteWriter w(2 + m.encoded_size(version));
  w.write_int16(prefix);
  m.encode(w, version);
  return w.take_bytes();
}

// A value: its version prefix, checked against the schema's range, then the
// struct. DecodeError names `log` and the record on an unknown version.
template <typename M>
M decode_versioned(ByteReader& r, std::string_view log) {
  const int16_t version = r.read_int16();
  if (version < M::kMinVersion || version > M::kMaxVersion)
    throw DecodeError(std::string(log) + ": unknown " + std::string(M::kName) + " version " + std::to_string(version));
  M m;
  m.decode(r, version);
  return m;
}

}  // namespace skiff::protocol
