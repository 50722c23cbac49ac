// The records of __share_group_state in Kafka's layout
// (ShareCoordinatorRecordSerde over the generated ShareSnapshot*/ShareUpdate*
// of coordinator/share/schemas): a key is `i16 record type` (0 ShareSnapshot,
// 1 ShareUpdate) then the key struct {string group id, uuid topic id, i32
// partition} at version 0; a value is `i16 version` (0) then the value struct
// (flexible; DeliveryCompleteCount is tagged field 0, default -1). A
// tombstone is a ShareSnapshotKey with a null value.
//
// Threads: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "coordinator/share/share_types.h"

namespace skiff::sharecoord {

struct EncodedRecord {
  std::vector<uint8_t> key;
  std::optional<std::vector<uint8_t>> value;  // nullopt: tombstone
};

EncodedRecord encode_share_record(const ShareRecord& record);
// Throws protocol::DecodeError on an unknown record type or version, or bytes
// that do not decode.
ShareRecord decode_share_record(std::span<const uint8_t> key, std::optional<std::span<const uint8_t>> value);

}  // namespace skiff::sharecoord
