// The parts of the "consumer" embedded protocol (ConsumerProtocolSubscription,
// the metadata a consumer sends in JoinGroup) the coordinator reads: the
// subscribed topics, for OffsetDelete's GROUP_SUBSCRIBED_TO_TOPIC.
// Pure functions, thread-safe.
#pragma once

#include <optional>
#include <set>
#include <string>

#include "api/group/group_types.h"

namespace skiff::api::group {

inline constexpr const char* kConsumerProtocolType = "consumer";

// The topics of a ConsumerProtocolSubscription (any version: the topic list
// comes first, after the int16 version); nothing if it does not parse.
std::optional<std::set<std::string>> subscribed_topics(const Bytes& subscription);

}  // namespace skiff::api::group
