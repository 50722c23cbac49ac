// Regular-expression subscriptions of KIP-848 consumer groups
// (ConsumerGroupHeartbeat v1's SubscribedTopicRegex, the Java client's
// subscribe(SubscriptionPattern)), resolved on the broker as Kafka 4.4's
// TopicRegexResolver does: RE2 syntax (Kafka uses RE2/J, a port of RE2, so
// the syntax is the same and matching is linear in the name: a client's
// pattern cannot stall the coordinator), the whole topic name must match
// (Matcher.matches()), every topic counts (Kafka 4.4 does not leave out
// internal topics here).
//
// A group caches one ResolvedRegex per distinct regex its members use
// (ConsumerGroup::regexes, persisted as ConsumerGroupRegularExpression
// records). A resolution remembers the topics version it was made at (the
// LogManager's topic generation, which moves on every topic creation,
// deletion and CreatePartitions); the heartbeat path resolves again only when
// that version moved, so the cost is one pass over the topic names per change
// of the topic set, not per heartbeat.
//
// Threads: pure functions; a ResolvedRegex is guarded by its group's mutex.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/name_pattern.h"

namespace skiff::group {

// A version no topics version equals: resolve again at the next chance (a
// resolution loaded from __consumer_offsets, whose version was another
// process's counter).
inline constexpr uint64_t kStaleTopicsVersion = std::numeric_limits<uint64_t>::max();

struct ResolvedRegex {
  std::set<std::string> topics;
  uint64_t version = kStaleTopicsVersion;                // the topics version it was resolved at
  int64_t timestamp_ms = 0;                              // wall clock of the last change of `topics`
  std::shared_ptr<const protocol::NamePattern> pattern;  // compiled once, shared by the group's images
};

// Kafka's INVALID_REGULAR_EXPRESSION message for a regex that does not
// compile ("SubscribedTopicRegex `(a` is not a valid regular expression:
// missing closing )."), or nothing.
std::optional<std::string> invalid_regex_message(std::string_view regex);

// The names `pattern` matches whole (none when it does not compile).
std::set<std::string> resolve_regex(const protocol::NamePattern& pattern, const std::vector<std::string>& names);

}  // namespace skiff::group
