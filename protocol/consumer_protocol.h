// The "consumer" embedded protocol of the classic group APIs, as the Java
// client writes it (Kafka's ConsumerProtocolSubscription, the metadata a
// consumer sends in JoinGroup, and ConsumerProtocolAssignment, what SyncGroup
// hands back). Read by the coordinator for OffsetDelete's
// GROUP_SUBSCRIBED_TO_TOPIC and for classic members of a consumer group
// (online migration, KIP-848): their subscription and owned partitions come
// from their JoinGroup metadata, and their SyncGroup answer is the consumer
// group's assignment written in this format.
//
// Byte layout (big endian, not flexible; versions 0-3):
//   Subscription: int16 version, [string topic], nullable bytes user data,
//     v1+: [string topic, [int32 partition]] owned partitions,
//     v2+: int32 generation id, v3+: nullable string rack id.
//   Assignment:   int16 version, [string topic, [int32 partition]],
//     nullable bytes user data (the same in every version).
// A newer version than 3 is read as version 3 (Kafka's ConsumerProtocol does
// the same: fields are only ever appended).
//
// Here, beside the codec, because clients write it: the web console decodes
// assignments with it too. Pure functions, thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace skiff::protocol {

using Bytes = std::vector<uint8_t>;

inline constexpr const char* kConsumerProtocolType = "consumer";

// Partitions by topic name.
using NamedPartitions = std::map<std::string, std::set<int32_t>>;

struct ConsumerSubscription {
  int16_t version = 0;
  std::vector<std::string> topics;
  NamedPartitions owned;               // v1+
  std::optional<std::string> rack_id;  // v3+
};

// The topics of a ConsumerProtocolSubscription (any version: the topic list
// comes first, after the int16 version); nothing if it does not parse.
std::optional<std::set<std::string>> subscribed_topics(const Bytes& subscription);
// The whole subscription; nothing if it does not parse.
std::optional<ConsumerSubscription> decode_subscription(const Bytes& subscription);
// The int16 version a subscription or assignment starts with (0 if too short).
int16_t embedded_protocol_version(const Bytes& bytes);

// A ConsumerProtocolAssignment of `version` (clamped to 0-3), null user data.
Bytes encode_assignment(int16_t version, const NamedPartitions& partitions);
// Nothing if it does not parse.
std::optional<NamedPartitions> decode_assignment(const Bytes& assignment);

}  // namespace skiff::protocol
