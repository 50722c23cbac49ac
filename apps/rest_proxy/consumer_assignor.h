// What a v2 consumer instance that subscribes does as a Kafka consumer's
// group logic does, without a broker: the JoinGroup metadata it sends (a
// ConsumerProtocolSubscription) and, when the coordinator makes it the
// leader, the "range" assignment it computes for every member (Kafka's
// RangeAssignor: per topic, the partitions in order split into contiguous
// ranges over the members subscribed to it, sorted by member id, the first
// ones taking one more when they do not divide evenly).
//
// Byte layout of the subscription written (version 1, big endian):
//   int16 version=1, int32 n, n x (int16 len, topic bytes), int32 -1 (null
//   user data), int32 m, m x owned partitions (topic, [int32]) - m = 0.
// Threads: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "protocol/consumer_protocol.h"

namespace skiff::restproxy {

inline constexpr const char* kRangeAssignor = "range";

// The JoinGroup metadata of a member subscribed to `topics`.
std::vector<uint8_t> encode_subscription(const std::vector<std::string>& topics);

// Kafka's RangeAssignor. `subscriptions`: member id -> its topics;
// `partition_counts`: topic -> its partition count (a topic missing here has
// none). Every member gets an entry, empty when it gets nothing.
std::map<std::string, protocol::NamedPartitions> range_assign(
    const std::map<std::string, std::vector<std::string>>& subscriptions,
    const std::map<std::string, int32_t>& partition_counts);

}  // namespace skiff::restproxy
