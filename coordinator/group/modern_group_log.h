// What the records of KIP-848's consumer groups (consumer_group_log.h) and
// KIP-932's share groups (share_group_log.h) in `__consumer_offsets` share:
// the topic-partitions of an assignment as the generated structs list them
// (topic id, partitions), and the group or member id out of a record key.
// Header-only templates over the generated structs; pure functions.
#pragma once

#include <utility>

#include "coordinator/group/consumer_group.h"
#include "protocol/byte_reader.h"

namespace skiff::group::modern_log {

// An assignment as the structs' list of (topic_id, partitions).
template <class Parts>
Parts to_parts(const consumer::Assignment& a) {
  Parts out;
  for (const auto& [id, ps] : a) {
    auto& tp = out.emplace_back();
    tp.topic_id = id;
    tp.partitions.assign(ps.begin(), ps.end());
  }
  return out;
}

template <class Parts>
consumer::Assignment from_parts(const Parts& parts) {
  consumer::Assignment a;
  for (const auto& tp : parts) a[tp.topic_id].insert(tp.partitions.begin(), tp.partitions.end());
  return a;
}

// A (group, member) key v0 into the record's ids.
template <class Key, class Record>
void decode_member_key(Record& r, protocol::ByteReader& kr) {
  Key k;
  k.decode(kr, 0);
  r.group_id = std::move(k.group_id);
  r.member_id = std::move(k.member_id);
}

// A (group) key v0 into the record's group id.
template <class Key, class Record>
void decode_group_key(Record& r, protocol::ByteReader& kr) {
  Key k;
  k.decode(kr, 0);
  r.group_id = std::move(k.group_id);
}

}  // namespace skiff::group::modern_log
